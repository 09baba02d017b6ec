import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanEntry } from '../../src/pairing/types.js';
import { runBinary } from '../support/binary.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { btmonRead, writeScene } from '../discovery/fixtures/captures.js';

// A btmon capture and an Android capture replayed into the real daemon (PANIC_PAIR_BLE_REPLAY):
// the buttons in `scan` with source ble and RSSI, paired by id and by window, the RSSI floor
// (-70 by default) holding. Everything through the real binary.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-ble-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STRONG = { id: 'STRONG1', address: 'c4:64:9f:00:00:01', rssi: -52 };
const WEAK = { id: 'WEAK01', address: 'c4:64:9f:00:00:02', rssi: -86 };
const NEAR = { id: 'NEAR02', address: 'c4:64:9f:00:00:03', rssi: -61 };

/** Every daemon line on stdout is JSON: noble must not print its own lines there. */
function expectJsonLogs(hub: DaemonHarness): void {
  const stray = hub.output().split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{'));
  expect(stray).toEqual([]);
}

describe('a btmon capture (datalink 2001) replayed into the daemon', () => {
  const file = path.join(dir, 'hub.btsnoop');
  let hub: DaemonHarness;
  beforeAll(async () => {
    writeScene(file, 2001, { buttons: [STRONG, WEAK], phones: 20, durationMs: 400, everyMs: 100 });
    hub = await startHarness({ env: { PANIC_PAIR_BLE: 'auto', PANIC_PAIR_BLE_REPLAY: file } });
  });
  afterAll(() => hub?.close());

  it('is a capture btmon reads', async (context) => {
    const text = await btmonRead(file);
    if (text === undefined) return context.skip('btmon is not installed');
    expect(text).toContain('Name (complete): PANIC-STRONG1');
    expect(text).toContain('RSSI: -86 dBm');
  });

  it('reports BLE scanning from the replayed file, and counts the advertisements', async () => {
    const status = await hub.status();
    expect(status).toMatchObject({ ble: 'scanning', healthy: true });
    expect(status.bleReason).toContain(file);
    const before = status.counters.announcements;
    await expect.poll(async () => (await hub.status()).counters.announcements, { timeout: 10_000 }).toBeGreaterThan(before + 20);
  });

  it('shows both buttons in scan, source ble, with RSSI, and no phone', async () => {
    const result = await hub.cli(['scan', '--seconds', '2', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const entries = JSON.parse(result.stdout) as ScanEntry[];
    expect(entries.map(({ deviceId, source, rssi }) => ({ deviceId, source, rssi }))).toEqual([
      { deviceId: 'STRONG1', source: 'ble', rssi: -52 },
      { deviceId: 'WEAK01', source: 'ble', rssi: -86 },
    ]);
    const table = await hub.cli(['scan', '--seconds', '1']);
    expect(table.stdout).toMatch(/^STRONG1 +ble +-52 dBm/m);
    expect(table.stdout).toMatch(/^WEAK01 +ble +-86 dBm/m);
  });

  it('links only the strong button in a pairing window', async () => {
    const result = await hub.cli(['pair', '--window', '3']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Linked STRONG1');
    expect(result.stdout).not.toContain('WEAK01');
    const devices = await hub.devices();
    expect(devices.map(({ deviceId, state, source }) => ({ deviceId, state, source }))).toEqual([{ deviceId: 'STRONG1', state: 'linked', source: 'ble' }]);
    expect(postsFor(hub, 'WEAK01')).toBe(0);
  });

  it('links the weak button when asked for it by id (the floor is for windows only)', async () => {
    const result = await hub.cli(['pair', 'WEAK01', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect((await hub.devices()).find((device) => device.deviceId === 'WEAK01')).toMatchObject({ state: 'linked', source: 'ble' });
    expect(postsFor(hub, 'STRONG1')).toBe(1);
    expectJsonLogs(hub);
  });
});

describe("an Android capture (btsnoop_hci.log, datalink 1002) replayed into the daemon", () => {
  const file = path.join(dir, 'btsnoop_hci.log');
  let hub: DaemonHarness;
  beforeAll(async () => {
    writeScene(file, 1002, { buttons: [NEAR], phones: 5, durationMs: 300, everyMs: 100 });
    hub = await startHarness({ env: { PANIC_PAIR_BLE: 'on', PANIC_PAIR_BLE_REPLAY: file } });
  });
  afterAll(() => hub?.close());

  it('shows the button in scan and pairs it by id', async () => {
    const scan = JSON.parse((await hub.cli(['scan', '--seconds', '1', '--json'])).stdout) as ScanEntry[];
    expect(scan).toEqual([expect.objectContaining({ deviceId: 'NEAR02', source: 'ble', rssi: -61 })]);
    const result = await hub.cli(['pair', 'NEAR02']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Linked NEAR02');
    expect((await hub.status()).healthy).toBe(true);
    expectJsonLogs(hub);
  });
});

describe('a malformed capture', () => {
  it('stops start-up with exit 2, naming the setting, the file and what is wrong', async () => {
    const hub = await startHarness();
    try {
      const bad = path.join(dir, 'not-a-capture.log');
      writeFileSync(bad, 'this is a text file\n');
      const own = mkdtempSync(path.join(dir, 'state-'));
      const result = await runBinary(['run'], {
        ...hub.daemonEnv(),
        PANIC_PAIR_STATE_DIR: own,
        PANIC_PAIR_RUNTIME_DIR: own,
        PANIC_PAIR_BLE: 'auto',
        PANIC_PAIR_BLE_REPLAY: bad,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`PANIC_PAIR_BLE_REPLAY: the capture ${bad} is not a btsnoop capture`);
    } finally {
      await hub.close();
    }
  });
});
