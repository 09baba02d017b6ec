import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SEED } from '../../src/simulator/seed.js';
import { fakeWallClock, findLibfaketime, NO_FAKETIME, type FakeWallClock } from '../support/faketime.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';

// A jump of the wall clock, forward or back, shortens or stretches no
// duration. The daemon runs under libfaketime and its wall clock is moved a day while it runs;
// durations are waited out on this process's monotonic clock, which is the daemon's too.

const library = findLibfaketime();
const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let hub: DaemonHarness | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

async function hubUnderFakeTime(name: string, env: Record<string, string> = {}): Promise<{ hub: DaemonHarness; clock: FakeWallClock }> {
  const clock = fakeWallClock(library!, mkdtempSync(path.join(dir, `${name}-`)));
  hub = await startHarness({ logLevel: 'info', env: { ...clock.env, ...env } });
  return { hub, clock };
}

/** Resolves once `ms` have passed on the monotonic clock since `since`. */
function monotonicPast(since: number, ms: number, what: string): Promise<boolean> {
  return waitFor(() => performance.now() - since >= ms, { timeoutMs: ms + 30_000, intervalMs: 50, what });
}

function stateOf(harness: DaemonHarness, deviceId: string): string | undefined {
  return harness.storeRecords().find((record) => record.deviceId === deviceId)?.state;
}

describe.skipIf(library === undefined)(`the daemon's wall clock moved a day while it runs (${library ?? NO_FAKETIME})`, () => {
  it('entitlement TTL: never links for a subscription suspended more than a TTL ago, the clock moved back a day', { timeout: 60_000 }, async () => {
    const { hub, clock } = await hubUnderFakeTime('ttl', { PANIC_PAIR_ENTITLEMENT_TTL: '2' });
    await hub.announceSeen('TTL-A');
    expect((await hub.cli(['pair', 'TTL-A'])).code).toBe(0);
    const entitledAt = performance.now();

    clock.set('-1d');
    const customer = DEFAULT_SEED.customers[0]!;
    hub.simulator.setSeed({ customers: [{ ...customer, subscriptions: customer.subscriptions.map((s) => ({ ...s, status: 'suspended' })) }] });
    await monotonicPast(entitledAt, 2_500, 'the entitlement TTL (2 s) to pass');

    await hub.announceSeen('TTL-B');
    const refused = await hub.cli(['pair', 'TTL-B', '--timeout', '10']);
    expect(refused.code, refused.stdout + refused.stderr).toBe(3);
    expect(postsFor(hub, 'TTL-B')).toBe(0);
  });

  it('`pair --window 10` stays open for its full time across a jump of a day forward: a button pressed after it is linked', { timeout: 60_000 }, async () => {
    const { hub, clock } = await hubUnderFakeTime('window');
    // The window opens after the command starts and closes (the command's end) 10 s after it
    // opened, on the monotonic clock: no sooner than 10 s after this, however loaded the machine.
    const startedAt = performance.now();
    const window = hub.cli(['pair', '--window', '10']);
    await waitFor(() => window.stdout().includes('Pairing window open'), { what: 'the window to open' });
    clock.set('+1d');
    await hub.announce('WIN-A');
    await waitFor(() => stateOf(hub, 'WIN-A') === 'linked', { timeoutMs: 15_000, what: 'WIN-A linked inside the window' });
    const result = await window;
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(10_000);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Linked WIN-A');
    expect(result.stdout).toContain('Pairing window closed after 10 s');
    expect(postsFor(hub, 'WIN-A')).toBe(1);
  });

  it('cool-down: a failed button is tried again 5 s later inside a window, the clock moved back a day meanwhile', { timeout: 60_000 }, async () => {
    const { hub, clock } = await hubUnderFakeTime('cool');
    const window = hub.cli(['pair', '--window', '20']);
    await waitFor(() => window.stdout().includes('Pairing window open'), { what: 'the window to open' });
    hub.simulator.setFaults({ queue: [{ type: 'not-json', route: 'link' }] });
    // The first try, and so its failure, comes after this: the second may come no sooner than 5 s after it.
    const pressedAt = performance.now();
    await hub.announce('COOL-A');
    await waitFor(() => window.stdout().includes('✘ COOL-A'), { timeoutMs: 15_000, what: 'the first attempt to fail' });
    clock.set('-1d');
    // Pressed again and again through the cool-down: a second try any sooner would show.
    let pressing = true;
    const presses = (async () => {
      while (pressing) {
        await hub.announce('COOL-A');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const retriedAt = await waitFor(() => (postsFor(hub, 'COOL-A') >= 2 ? performance.now() : undefined), { timeoutMs: 15_000, what: 'the second try' }).finally(
      () => (pressing = false),
    );
    await presses;
    expect(retriedAt - pressedAt).toBeGreaterThanOrEqual(5_000);
    await waitFor(() => stateOf(hub, 'COOL-A') === 'linked', { timeoutMs: 10_000, what: 'COOL-A linked after its cool-down' });
    expect(postsFor(hub, 'COOL-A')).toBe(2);
    expect((await window).code).toBe(0);
  });

  it('recent-sighting allowance and sighting ages: `pair <id>` right after a press links at once, the clock moved forward a day', { timeout: 60_000 }, async () => {
    const { hub, clock } = await hubUnderFakeTime('recent');
    await hub.announceSeen('SEEN-A');
    clock.set('+1d');
    const pair = await hub.cli(['pair', 'SEEN-A', '--timeout', '5']);
    expect(pair.code, pair.stdout + pair.stderr).toBe(0);
    expect(pair.stdout).not.toContain('press it now');
    expect(postsFor(hub, 'SEEN-A')).toBe(1);

    // The uptime `status` shows is the daemon's monotonic one, not a difference of wall times.
    const status = await hub.cli(['status'], { env: clock.env });
    expect(status.stdout).toMatch(/^daemon +running, pid \d+, up \d+ s/m);

    // `scan` stamps what it heard on the daemon's wall clock (now a day ahead), less its age.
    const scan = hub.cliJson<Array<{ deviceId: string; lastSeen: string }>>(['scan', '--seconds', '2']);
    let scanning = true;
    void scan.finally(() => (scanning = false));
    while (scanning) await hub.announce('SEEN-B');
    const heard = (await scan).find((entry) => entry.deviceId === 'SEEN-B');
    expect(Math.abs(Date.parse(heard!.lastSeen) - Date.now() - 86_400_000)).toBeLessThan(60_000);
  });

  it('background retries: a link that failed while the API was down completes once it is back, the clock moved back a day', { timeout: 120_000 }, async () => {
    const { hub, clock } = await hubUnderFakeTime('retry');
    await hub.announceSeen('BACK-A');
    hub.simulator.setFaults({ queue: [{ type: 'status', status: 503, count: 1_000, route: 'link' }] });
    const pair = await hub.cli(['pair', 'BACK-A', '--timeout', '6']);
    expect(pair.code, pair.stdout + pair.stderr).toBe(8);
    clock.set('-1d');
    hub.simulator.setFaults({});
    await waitFor(() => stateOf(hub, 'BACK-A') === 'linked', { timeoutMs: 90_000, intervalMs: 250, what: 'the background retry to link BACK-A' });
    // Stamped on the daemon's wall clock, a day back.
    const record = hub.storeRecords().find((r) => r.deviceId === 'BACK-A')!;
    expect(Date.now() - Date.parse(record.linkedAt!)).toBeGreaterThan(20 * 3_600_000);
  });
});
