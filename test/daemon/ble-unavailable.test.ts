import { afterAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/status/status-report.js';
import { probeBle } from '../../src/check/ble-probe.js';
import { bluetoothRefused } from '../support/bluetooth.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';

// On a machine without Bluetooth (the kernel refuses AF_BLUETOOTH) the daemon runs on without BLE
// and says why; with PANIC_PAIR_BLE=on that makes it degraded. Skipped where Bluetooth works.

const refused = bluetoothRefused();
if (!refused) process.stderr.write('this machine has Bluetooth: the tests of a machine without it are skipped\n');
const UNSUPPORTED = 'unsupported: this kernel has no Bluetooth (AF_BLUETOOTH refused)';

describe.skipIf(!refused)('a hub without Bluetooth', () => {
  const hubs: DaemonHarness[] = [];
  afterAll(async () => {
    await Promise.all(hubs.map((hub) => hub.close()));
  });

  it('auto: runs healthy without BLE, and status says why', async () => {
    const hub = await startHarness({ env: { PANIC_PAIR_BLE: 'auto' } });
    hubs.push(hub);
    const status = await hub.status();
    expect(status).toMatchObject({ ble: 'unavailable', bleReason: UNSUPPORTED, healthy: true, bleAdapter: null, bleRestarts: 0, bleLastHeardSeconds: null });
    const text = await hub.cli(['status']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^BLE +unavailable/m);
    // MQTT pairing goes on meanwhile.
    await hub.announceSeen('MQTT-ONLY');
    expect(hub.output()).toContain('BLE cannot be used; running without it');
  });

  it('on: runs without BLE too, but degraded, with the reason', async () => {
    const hub = await startHarness({ env: { PANIC_PAIR_BLE: 'on' } });
    hubs.push(hub);
    const result = await hub.cli(['status', '--json']);
    expect(result.code).toBe(1);
    const status = JSON.parse(result.stdout) as StatusReport;
    expect(status).toMatchObject({ ble: 'unavailable', healthy: false });
    expect(status.problems).toContain(`BLE is unavailable: ${UNSUPPORTED}`);
  });

  it('probeBle (used by check) says the same', async () => {
    expect(await probeBle({ index: 0 })).toEqual({ state: 'unavailable', reason: UNSUPPORTED });
  });
});
