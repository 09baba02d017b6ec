import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceRow } from '../../src/supervision/types.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';

// `panic-pair devices` against a real daemon (CONTRACT.md section 17): a button just linked is not
// yet known to be heard, and reads so; its next report makes it heard, in words and in JSON.

let hub: DaemonHarness;
beforeAll(async () => {
  hub = await startHarness();
});
afterAll(async () => {
  await hub?.close();
});

describe('devices on a supervising daemon', () => {
  it('says when each linked button was heard', async () => {
    await hub.announceSeen('HEARD1');
    const pair = await hub.cli(['pair', 'HEARD1', '--json']);
    expect(pair.code, pair.stderr).toBe(0);
    await hub.announce('HEARD1', { rssi: -50 });
    const row = await waitFor(async () => {
      const rows = JSON.parse((await hub.cli(['devices', '--json'])).stdout) as DeviceRow[];
      return rows.find((device) => device.deviceId === 'HEARD1' && device.supervision === 'online');
    }, { what: 'HEARD1 heard after its link' });
    expect(row).toMatchObject({ state: 'linked', battery: null, batteryLow: false });
    expect(Date.parse(row.lastHeard ?? '')).not.toBeNaN();
    expect((await hub.cli(['devices'])).stdout).toMatch(/^HEARD1 +linked .* heard (just now|\d+ s ago) +- +not authenticated$/m);
  });
});
