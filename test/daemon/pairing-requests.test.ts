import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanEntry } from '../../src/pairing/types.js';
import { postsFor, startHarness, type CliResult, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';

// What makes a button linked: `pair <id>`, `pair --window S`, or PANIC_PAIR_AUTO_PAIR, and
// nothing else. Through the real binary, against a real daemon, broker and the simulator.

/** Announces every 100 ms until `running` settles: a button pressed over and over. */
async function pressUntil(hub: DaemonHarness, deviceId: string, running: Promise<CliResult>): Promise<CliResult> {
  let done = false;
  const finished = running.finally(() => (done = true));
  while (!done) {
    await hub.announce(deviceId);
    await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 100))]);
  }
  return finished;
}

describe('a daemon without automatic pairing', () => {
  let hub: DaemonHarness;
  beforeAll(async () => {
    hub = await startHarness();
  });
  afterAll(() => hub?.close());

  it('links every button announced inside a pairing window, and none announced after it closed', async () => {
    const window = hub.cli(['pair', '--window', '3']);
    await waitFor(async () => (await hub.status()).windowOpenUntil, { what: 'the pairing window to open' });
    for (const id of ['WIN-A', 'WIN-B', 'WIN-C']) await hub.announce(id);

    const result = await window;
    expect(result.code, result.stderr).toBe(0);
    for (const id of ['WIN-A', 'WIN-B', 'WIN-C']) expect(result.stdout).toContain(`Linked ${id}`);
    expect(result.stdout).toContain('3 linked');
    const linked = (await hub.devices()).filter((device) => device.state === 'linked').map((device) => device.deviceId);
    expect(linked).toEqual(expect.arrayContaining(['WIN-A', 'WIN-B', 'WIN-C']));

    // The window's process has exited, so the window is closed: this one must stay unlinked.
    await hub.announceSeen('WIN-LATE');
    expect((await hub.status()).windowOpenUntil).toBeUndefined();
    expect((await hub.devices()).map((device) => device.deviceId)).not.toContain('WIN-LATE');
    expect(postsFor(hub, 'WIN-LATE')).toBe(0);
    expect(['WIN-A', 'WIN-B', 'WIN-C'].map((id) => postsFor(hub, id))).toEqual([1, 1, 1]);
  });

  it('does not link a stray announcement, keeps it off disk, but shows it in scan', async () => {
    const scan = await pressUntil(hub, 'STRAY-A', hub.cli(['scan', '--seconds', '1', '--json']));
    expect(scan.code, scan.stderr).toBe(0);
    const entries = JSON.parse(scan.stdout) as ScanEntry[];
    const stray = entries.find((entry) => entry.deviceId === 'STRAY-A');
    expect(stray).toMatchObject({ deviceId: 'STRAY-A', source: 'mqtt' });
    expect(Date.parse(stray?.lastSeen ?? '')).not.toBeNaN();
    expect(stray?.state).toBeUndefined();

    expect((await hub.devices()).map((device) => device.deviceId)).not.toContain('STRAY-A');
    expect(hub.storeRecords().map((device) => device.deviceId)).not.toContain('STRAY-A');
    expect(postsFor(hub, 'STRAY-A')).toBe(0);
  });

  it('makes one POST for two concurrent `pair` requests for one button, and both exit 0', async () => {
    hub.simulator.setFaults({ latencyMs: 300 });
    try {
      await hub.announceSeen('TWICE-A');
      const [first, second] = await Promise.all([hub.cli(['pair', 'TWICE-A']), hub.cli(['pair', 'TWICE-A'])]);
      expect(first.code, first.stderr).toBe(0);
      expect(second.code, second.stderr).toBe(0);
    } finally {
      hub.simulator.setFaults({});
    }
    expect(postsFor(hub, 'TWICE-A')).toBe(1);
    expect((await hub.devices()).find((device) => device.deviceId === 'TWICE-A')?.state).toBe('linked');
  });

  it('makes one POST when both requests are waiting for the button when it is announced', async () => {
    hub.simulator.setFaults({ latencyMs: 300 });
    try {
      const requests = [hub.cli(['pair', 'TWICE-B']), hub.cli(['pair', 'TWICE-B'])];
      await waitFor(() => requests.every((request) => request.stdout().includes('Waiting for button TWICE-B')), {
        what: 'both requests to wait for the button',
      });
      await hub.announce('TWICE-B');
      const [first, second] = await Promise.all(requests);
      expect(first?.code, first?.stderr).toBe(0);
      expect(second?.code, second?.stderr).toBe(0);
    } finally {
      hub.simulator.setFaults({});
    }
    expect(postsFor(hub, 'TWICE-B')).toBe(1);
  });
});

describe('a daemon with PANIC_PAIR_AUTO_PAIR=true', () => {
  let hub: DaemonHarness;
  beforeAll(async () => {
    hub = await startHarness({ env: { PANIC_PAIR_AUTO_PAIR: 'true' } });
  });
  afterAll(() => hub?.close());

  it('links an announced button without being asked', async () => {
    await hub.announce('AUTO-A');
    const record = await waitFor(async () => (await hub.devices()).find((device) => device.deviceId === 'AUTO-A' && device.state === 'linked'), {
      what: 'AUTO-A to be linked',
    });
    expect(record).toMatchObject({ customerId: 42, source: 'mqtt', linkId: expect.any(Number) });
    expect(postsFor(hub, 'AUTO-A')).toBe(1);
  });
});

describe('an API that answers a link with 200 instead of 201', () => {
  let hub: DaemonHarness;
  beforeAll(async () => {
    hub = await startHarness({ linkStatus: 200 });
  });
  afterAll(() => hub?.close());

  it('counts it as linked', async () => {
    await hub.announceSeen('OK200-A');
    const result = await hub.cli(['pair', 'OK200-A', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout) as { state: string; linkId: number };
    expect(answer.state).toBe('linked');
    const record = (await hub.devices()).find((device) => device.deviceId === 'OK200-A');
    expect(record).toMatchObject({ state: 'linked', linkId: answer.linkId });
    expect((await hub.status()).counters.links).toBe(1);
  });
});
