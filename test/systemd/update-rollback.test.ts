import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import type { TestBroker } from '../support/broker.js';
import { checkoutPackage, CHECKOUT_VERSION } from '../support/checkout-package.js';
import { faultyPackage } from '../support/faulty-package.js';
import { BACK_WITHIN_S, PROBATION_SECONDS, startUpdateWorld, type Row, type UpdateHub, type UpdateWorld } from '../support/update-hub.js';
import { updateSuiteBoot } from '../support/update-suite.js';
import { waitFor } from '../support/wait.js';

// An update that fails undoes itself: a hub on Debian 13 under systemd that takes its updates from
// a signed file: repository with unattended-upgrades, every release built from this tree. A good
// release passes its probation and is kept; a release that exits at every start, and one that
// refuses the store the version before wrote, are judged by the watch the version before put in
// place, which installs that version again from the copy it kept on the hub: ready, every link
// kept, the failed version kept out of apt while a later good one is taken. A rollback cut by a
// power failure midway is finished at the next boot. A hub whose API is down keeps a good release.
// The slower faults (never ready, a crash a minute after ready) are in update-rollback-slow.

const TOKEN = 'rollback-token-5e0c93b7d1';
const CUSTOMER_ID = 42;
const STEP_MS = 60_000;
const V = {
  first: `${CHECKOUT_VERSION}+r1`,
  good: `${CHECKOUT_VERSION}+r2`,
  exits: `${CHECKOUT_VERSION}+r3`,
  store: `${CHECKOUT_VERSION}+r4`,
  cut: `${CHECKOUT_VERSION}+r5`,
  later: `${CHECKOUT_VERSION}+r6`,
  offline: `${CHECKOUT_VERSION}+r7`,
};

const booted = await updateSuiteBoot('update rollback');
const skipReason = typeof booted === 'string' ? booted : undefined;

describe.skipIf(skipReason !== undefined)(`an update that fails undoes itself, in a systemd container${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const box = booted as Exclude<typeof booted, string>;
  let world: UpdateWorld;
  let simulator: Simulator;
  let broker: TestBroker;
  let hub: UpdateHub;
  let linked: Row[];

  beforeAll(async () => {
    world = await startUpdateWorld(box, TOKEN, 'update-rollback');
    ({ simulator, broker, hub } = world);
  }, 5 * STEP_MS);

  afterAll(() => world?.stop(), 2 * STEP_MS);

  /** Publishes `deb`, lets the hub take it, and waits for the judge to roll it back to `previous`. */
  const rolledBack = async (version: string, deb: string, previous: string) => {
    await hub.publish([deb]);
    const taken = await hub.takeUpdates();
    expect(taken).toMatch(/Packages that will be upgraded: panic-pair\s*$/m);
    return hub.backOn(version, previous, BACK_WITHIN_S * 1000 + STEP_MS, world.measured);
  };

  it('the first release that carries the judge is installed with apt, configured, and links a button', async () => {
    await hub.configureApt([await checkoutPackage('amd64', V.first)]);
    expect((await hub.apt('update')).code).toBe(0);
    const install = await hub.apt('install', 'panic-pair');
    expect(install.code, install.stdout + install.stderr).toBe(0);
    await hub.configure({ apiUrl: simulator.url, customerId: CUSTOMER_ID, mqttUrl: broker.url }, TOKEN);
    const paired = await hub.pair(broker.url, 'ROLL-1');
    expect(paired.code, paired.stderr).toBe(0);
    const status = await hub.status();
    expect(status.version).toBe(V.first);
    // Installed, never updated: nothing to say yet.
    expect(status.update).toBeNull();
    linked = await hub.devices();
    expect(linked).toMatchObject([{ deviceId: 'ROLL-1', state: 'linked', customerId: CUSTOMER_ID }]);
  }, 3 * STEP_MS);

  it('a good release is on probation, then kept: nothing is rolled back', async () => {
    await hub.publish([await checkoutPackage('amd64', V.good)]);
    const taken = await hub.takeUpdates();
    expect(taken).toMatch(/Packages that will be upgraded: panic-pair\s*$/m);
    expect(hub.outcome()).toMatchObject({ state: 'probation', version: V.good, previous: V.first });
    expect((await hub.status()).update).toMatchObject({ state: 'probation', version: V.good, previous: V.first });

    const kept = await hub.decided(V.good, 'kept', (PROBATION_SECONDS + 60) * 1000);
    expect(kept).toMatchObject({ version: V.good, previous: V.first, reason: null });
    expect(await hub.installed()).toEqual({ version: V.good, status: 'ii' });
    expect(hub.pins()).toEqual([]);
    const status = await hub.status();
    expect(status.update).toMatchObject({ state: 'kept', version: V.good });
    expect(status.problems.join('\n')).not.toContain('rolled back');
    const said = (await hub.judgeLog()).map((line) => line.message).join('\n');
    expect(said).toContain(`${V.good} is installed: on probation for ${PROBATION_SECONDS} s`);
    expect(said).toContain(`judged: ${V.good} passed its probation (active after ${PROBATION_SECONDS} s`);
    // The watch took itself away: nothing of it at the next boot.
    expect(hub.probation()).toBeUndefined();
  }, 4 * STEP_MS);

  it('a release that exits at every start is rolled back to the version before, ready, every link kept, and kept out of apt', async () => {
    const outcome = await rolledBack(V.exits, await faultyPackage('exits-at-start', V.exits), V.good);
    expect(outcome).toMatchObject({ state: 'rolled-back', previous: V.good, reason: 'stopped 3 times without being asked' });
    expect(await hub.devices()).toEqual(linked);
    const status = await hub.status();
    expect(status.version).toBe(V.good);
    expect(status.healthy).toBe(false);
    expect(status.problems).toContain(`update to ${V.exits} rolled back to ${V.good}: stopped 3 times without being asked`);
    expect(hub.pins()).toEqual([`panic-pair-failed-${V.exits.replace(/[^A-Za-z0-9_.-]/g, '_')}.pref`]);

    // The next day's run does not take it again; by hand it can still be had.
    const again = await hub.takeUpdates();
    expect(again).toContain('No packages found that can be upgraded unattended');
    expect(await hub.installed()).toEqual({ version: V.good, status: 'ii' });
    const byHand = await hub.apt('install', '--simulate', '--allow-downgrades', `panic-pair=${V.exits}`);
    expect(byHand.code, byHand.stdout + byHand.stderr).toBe(0);
    expect(byHand.stdout).toContain(`Inst panic-pair [${V.good}] (${V.exits}`);
  }, 8 * STEP_MS);

  it('a release that refuses the store the version before wrote is rolled back at once, saying so', async () => {
    const outcome = await rolledBack(V.store, await faultyPackage('refuses-store', V.store), V.good);
    expect(outcome).toMatchObject({ previous: V.good, reason: 'refused the store the version before wrote' });
    expect(await hub.devices()).toEqual(linked);
    const said = (await hub.judgeLog()).map((line) => line.message).join('\n');
    expect(said).toContain(`judged: ${V.store} failed its probation: refused the store the version before wrote (Result=exit-code, exit status 65)`);
  }, 8 * STEP_MS);

  it('a power failure in the middle of a rollback: at the next boot the hub finishes it, on one whole version', async () => {
    await hub.publish([await faultyPackage('exits-at-start', V.cut)]);
    await hub.takeUpdates();
    // Cut the power while dpkg installs the version before (or, at the latest, once the judge has
    // decided and saved that it goes back).
    const cutAt = await waitFor(() => (hub.running('/var/lib/panic-pair-update/previous.deb') ? 'while dpkg installed the version before' : hub.probation()?.phase === 'rolling-back' ? 'once the judge had saved that it goes back' : undefined), {
      timeoutMs: 3 * STEP_MS,
      intervalMs: 50,
      what: 'the rollback to begin',
    });
    await box.reboot({ powerCut: true });
    world.measured.push(`the power cut ${cutAt}`);
    await hub.decided(V.cut, 'rolled-back', 3 * STEP_MS);
    expect(await hub.installed()).toEqual({ version: V.good, status: 'ii' });
    expect(await hub.audit()).toBe('');
    expect(await hub.devices()).toEqual(linked);
    expect((await hub.status()).version).toBe(V.good);
  }, 8 * STEP_MS);

  it('a later good release is taken, on probation, and kept; the rollback is no longer said', async () => {
    await hub.publish([await checkoutPackage('amd64', V.later)]);
    const taken = await hub.takeUpdates();
    expect(taken).toMatch(/Packages that will be upgraded: panic-pair\s*$/m);
    // While it is on probation the rollback before it still stands.
    expect((await hub.status()).problems).toContain(`update to ${V.cut} rolled back to ${V.good}: stopped 3 times without being asked`);
    await hub.decided(V.later, 'kept', (PROBATION_SECONDS + 60) * 1000);
    expect(await hub.installed()).toEqual({ version: V.later, status: 'ii' });
    const status = await hub.status();
    expect(status.update).toMatchObject({ state: 'kept', version: V.later, previous: V.good });
    expect(status.problems.join('\n')).not.toContain('rolled back');
    expect(await hub.devices()).toEqual(linked);
  }, 4 * STEP_MS);

  it('a hub whose API is down before and after the update keeps a good release', async () => {
    await simulator.close();
    // A button pressed while the API is down: the daemon tries, fails, and says so.
    const apiDown = async () => {
      const attempt = await hub.pair(broker.url, 'ROLL-OFFLINE', 5);
      expect(attempt.code).not.toBe(0);
      return (await hub.status()).problems.some((problem) => problem.startsWith('the API is failing'));
    };
    await waitFor(apiDown, { timeoutMs: STEP_MS, intervalMs: 500, what: 'the hub to say its API is down' });
    await hub.publish([await checkoutPackage('amd64', V.offline)]);
    await hub.takeUpdates();
    await hub.decided(V.offline, 'kept', (PROBATION_SECONDS + 60) * 1000);
    expect(await hub.installed()).toEqual({ version: V.offline, status: 'ii' });
    await waitFor(apiDown, { timeoutMs: STEP_MS, intervalMs: 500, what: 'the new version to say its API is down' });
    // The button tried while the API was down is `failed`; every link is as it was.
    expect((await hub.devices()).filter((row) => row.state === 'linked')).toEqual(linked);
  }, 4 * STEP_MS);
});
