import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import type { TestBroker } from '../support/broker.js';
import { checkoutPackage, CHECKOUT_VERSION } from '../support/checkout-package.js';
import { faultyPackage } from '../support/faulty-package.js';
import { BACK_WITHIN_S, startUpdateWorld, type Row, type UpdateHub, type UpdateWorld } from '../support/update-hub.js';
import { updateSuiteBoot } from '../support/update-suite.js';
import { waitFor } from '../support/wait.js';

// The faults whose failure takes minutes to show, in a hub of their own beside update-rollback's:
// a release that never says READY=1 (failed when its start reaches 150 s), and one that is ready
// and then crashes a minute later, every time (failed at its third crash). A button linked by the
// crashing release during its probation is in the store the version before reads, and is never
// posted again.

const TOKEN = 'rollback-slow-token-2b71e4c0a9';
const CUSTOMER_ID = 42;
const STEP_MS = 60_000;
const V = { first: `${CHECKOUT_VERSION}+s1`, neverReady: `${CHECKOUT_VERSION}+s2`, crashes: `${CHECKOUT_VERSION}+s3` };

const booted = await updateSuiteBoot('slow update rollback');
const skipReason = typeof booted === 'string' ? booted : undefined;

describe.skipIf(skipReason !== undefined)(`releases that fail slowly are rolled back, in a systemd container${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const box = booted as Exclude<typeof booted, string>;
  let world: UpdateWorld;
  let simulator: Simulator;
  let broker: TestBroker;
  let hub: UpdateHub;
  let linked: Row[];

  beforeAll(async () => {
    world = await startUpdateWorld(box, TOKEN, 'update-rollback-slow');
    ({ simulator, broker, hub } = world);
    await hub.configureApt([await checkoutPackage('amd64', V.first)]);
    expect((await hub.apt('update')).code).toBe(0);
    const install = await hub.apt('install', 'panic-pair');
    if (install.code !== 0) throw new Error(`apt-get install panic-pair exited ${install.code}: ${install.stdout}${install.stderr}`);
    // Long enough for three crashes a minute apart to fall within it.
    await hub.configure({ apiUrl: simulator.url, customerId: CUSTOMER_ID, mqttUrl: broker.url, updateProbation: 300 }, TOKEN);
    const paired = await hub.pair(broker.url, 'SLOW-1');
    if (paired.code !== 0) throw new Error(`pair SLOW-1 exited ${paired.code}: ${paired.stderr}`);
    linked = await hub.devices();
  }, 5 * STEP_MS);

  afterAll(() => world?.stop(), 2 * STEP_MS);

  /** The slowest failure shows 150 s into a start, or at a third crash a minute after each start. */
  const back = (version: string) => hub.backOn(version, V.first, (150 + 3 * 70 + BACK_WITHIN_S) * 1000, world.measured);

  it('a release that never becomes ready fails when its start reaches 150 s, and the version before runs again', async () => {
    await hub.publish([await faultyPackage('never-ready', V.neverReady)]);
    await hub.takeUpdates();
    const outcome = await back(V.neverReady);
    expect(outcome).toMatchObject({ previous: V.first, reason: 'not ready within 150 s' });
    expect(await hub.devices()).toEqual(linked);
    expect((await hub.status()).version).toBe(V.first);
  }, 12 * STEP_MS);

  it('a release that crashes a minute after it is ready fails at its third crash; the link it made meanwhile is kept and never posted again', async () => {
    await hub.publish([await faultyPackage('crash-after-ready', V.crashes)]);
    await hub.takeUpdates();
    await waitFor(async () => (await hub.status()).version === V.crashes, { timeoutMs: STEP_MS, intervalMs: 500, what: `${V.crashes} to answer` });
    const paired = await hub.pair(broker.url, 'SLOW-2');
    expect(paired.code, paired.stderr).toBe(0);
    const madeByTheFailedVersion = (await hub.devices()).find((row) => row.deviceId === 'SLOW-2');
    expect(madeByTheFailedVersion).toMatchObject({ state: 'linked' });

    const outcome = await back(V.crashes);
    expect(outcome).toMatchObject({ previous: V.first, reason: 'stopped 3 times without being asked' });
    expect(await hub.devices()).toEqual([...linked, madeByTheFailedVersion].sort((a, b) => String(a?.deviceId).localeCompare(String(b?.deviceId))));
    // Already linked for the version before: nothing is posted.
    const posts = simulator.stats().postsByDevice['SLOW-2'];
    expect(posts).toBe(1);
    const again = await hub.pair(broker.url, 'SLOW-2');
    expect(again.code, again.stderr).toBe(0);
    expect(simulator.stats().postsByDevice['SLOW-2']).toBe(1);
  }, 12 * STEP_MS);
});
