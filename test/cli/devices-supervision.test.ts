import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceRow } from '../../src/supervision/types.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';

// `panic-pair devices` against a real daemon: the report that links a
// button is its first heard one, with its battery; its next reports keep it heard, in words and in
// JSON.

let hub: DaemonHarness;
beforeAll(async () => {
  hub = await startHarness();
});
afterAll(async () => {
  await hub?.close();
});

describe('devices on a supervising daemon', () => {
  it('shows a freshly paired button heard, with the battery of the report that linked it', async () => {
    await hub.announceSeen('FRESH1', { battery: 64 });
    const pair = await hub.cli(['pair', 'FRESH1', '--json']);
    expect(pair.code, pair.stderr).toBe(0);
    // No report after the link: the one that linked it is its first heard.
    const row = await waitFor(async () => (JSON.parse((await hub.cli(['devices', '--json'])).stdout) as DeviceRow[]).find((device) => device.deviceId === 'FRESH1' && device.battery !== null), { what: 'FRESH1 with its battery' });
    expect(row).toMatchObject({ state: 'linked', battery: 64, supervision: 'online', authenticated: false });
    expect(Date.parse(row?.lastHeard ?? '')).not.toBeNaN();
  });

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
