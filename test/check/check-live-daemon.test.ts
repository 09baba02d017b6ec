import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/index.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { writeScene } from '../discovery/fixtures/captures.js';

// `check` on a hub whose daemon runs: the adapter's state is asked of the daemon over
// its control socket, never found by opening the adapter, which would stop the daemon's scan. The
// daemon here scans a replayed capture; `check` is told of an adapter that does not exist
// (hci97), so a probe of its own could only fail: a pass can come from the daemon alone.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-check-live-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('panic-pair check while the daemon runs', () => {
  const capture = path.join(dir, 'hub.btsnoop');
  let hub: DaemonHarness;
  beforeAll(async () => {
    writeScene(capture, 2001, { buttons: [{ id: 'LIVE01', address: 'c4:64:9f:00:00:01', rssi: -50 }], phones: 2, durationMs: 400, everyMs: 100 });
    hub = await startHarness({ env: { PANIC_PAIR_BLE: 'on', PANIC_PAIR_BLE_REPLAY: capture } });
  });
  afterAll(() => hub?.close());

  const check = () =>
    hub.cli(['check', '--json'], { env: { ...hub.daemonEnv(), PANIC_PAIR_BLE_REPLAY: undefined, PANIC_PAIR_HCI_DEVICE: '97' } });

  it("reads the adapter's state from the daemon, and its scan is never restarted", async () => {
    const before = await hub.status();
    expect(before.ble).toBe('scanning');
    const result = await check();
    const report = JSON.parse(result.stdout) as CheckReport;
    const ble = report.checks.find((entry) => entry.name === 'ble');
    expect(ble, result.stdout).toMatchObject({ ok: true, detail: 'adapter hci97 is scanning, as the running daemon reports (its scan is left alone)' });
    const after = await hub.status();
    expect(after.ble).toBe('scanning');
    expect(after.bleRestarts).toBe(before.bleRestarts);
  });

  it('without a daemon, opens the adapter itself (and here finds none)', async () => {
    await hub.stop();
    const result = await check();
    const report = JSON.parse(result.stdout) as CheckReport;
    const ble = report.checks.find((entry) => entry.name === 'ble');
    expect(ble?.ok).toBe(false);
    expect(ble?.detail).not.toContain('running daemon');
  });
});
