import { afterEach, describe, expect, it } from 'vitest';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { CLOCK_CONVERSION_JITTER_MS } from '../support/loaded-machine.js';
import { waitFor } from '../support/wait.js';

// What survives the daemon's end: a clean stop, a stop with a link in
// flight, and kill -9 in the middle of a link.

let hub: DaemonHarness | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

function storeState(harness: DaemonHarness, deviceId: string): string | undefined {
  return harness.storeRecords().find((record) => record.deviceId === deviceId)?.state;
}

describe('the pairing store across restarts', () => {
  it('keeps every device after SIGTERM and a new start', async () => {
    hub = await startHarness();
    hub.simulator.setFaults({ rejectDeviceIds: ['KEEP-R'] });
    for (const id of ['KEEP-A', 'KEEP-B', 'KEEP-R']) {
      await hub.announceSeen(id);
      await hub.cli(['pair', id]);
    }
    const before = await hub.devices();
    expect(before.map((device) => [device.deviceId, device.state])).toEqual([
      ['KEEP-A', 'linked'],
      ['KEEP-B', 'linked'],
      ['KEEP-R', 'rejected'],
    ]);

    expect(await hub.stop()).toEqual({ code: 0, signal: null });
    await hub.restart();
    const after = (await hub.devices()) as unknown as Record<string, unknown>[];
    const earlier = before as unknown as Record<string, unknown>[];
    // Every pairing as it was. Liveness starts again: a button heard before the
    // restart is `unknown` until heard again, its last-heard time kept (within the clock conversions' jitter, below).
    const pairing = ({ supervision: _s, lastHeard: _l, ...rest }: Record<string, unknown>) => rest;
    expect(after.map(pairing)).toEqual(earlier.map(pairing));
    for (const [i, device] of after.entries()) {
      const was = earlier[i]!;
      if (was.supervision === 'online') expect(device.supervision).toBe('unknown');
      if (typeof was.lastHeard !== 'string') expect(device.lastHeard).toEqual(was.lastHeard);
      // Converted between the monotonic clock and the wall clock at each read and at the save.
      else expect(Math.abs(Date.parse(String(device.lastHeard)) - Date.parse(was.lastHeard))).toBeLessThanOrEqual(CLOCK_CONVERSION_JITTER_MS);
    }
  });

  it('finishes a link cut by SIGKILL after a restart, with at most one extra POST', async () => {
    hub = await startHarness();
    const harness = hub;
    harness.simulator.setFaults({ latencyMs: 1500 });
    await harness.announceSeen('KILL-A');
    const pair = harness.cli(['pair', 'KILL-A']);
    await waitFor(() => storeState(harness, 'KILL-A') === 'linking', { what: 'the linking record on disk' });
    harness.kill('SIGKILL');
    expect((await harness.exited()).signal).toBe('SIGKILL');
    expect((await pair).code).not.toBe(0);
    expect(storeState(harness, 'KILL-A')).toBe('linking');

    harness.simulator.setFaults({});
    await harness.restart();
    const record = await waitFor(async () => (await harness.devices()).find((device) => device.deviceId === 'KILL-A' && device.state === 'linked'), {
      timeoutMs: 15_000,
      what: 'KILL-A to be linked after the restart',
    });
    expect(record.linkId).toEqual(expect.any(Number));
    expect(postsFor(harness, 'KILL-A')).toBeGreaterThanOrEqual(1);
    expect(postsFor(harness, 'KILL-A')).toBeLessThanOrEqual(2);
  });

  it('lets a link in flight settle on SIGTERM, exits 0, and the store says linked', async () => {
    hub = await startHarness();
    const harness = hub;
    harness.simulator.setFaults({ latencyMs: 1000 });
    await harness.announceSeen('TERM-A');
    const pair = harness.cli(['pair', 'TERM-A']);
    await waitFor(() => storeState(harness, 'TERM-A') === 'linking', { what: 'the linking record on disk' });
    expect(await harness.stop()).toEqual({ code: 0, signal: null });
    await pair;

    expect(storeState(harness, 'TERM-A')).toBe('linked');
    expect(postsFor(harness, 'TERM-A')).toBe(1);
    expect(harness.output()).not.toContain('"level":50');
  });
});
