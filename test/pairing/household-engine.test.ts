import { describe, expect, it } from 'vitest';
import type { PairingEngine } from '../../src/pairing/engine.js';
import type { LinkOutcome } from '../../src/pairing/types.js';
import type { Seed } from '../../src/simulator/index.js';
import { REAL_IO_TIMEOUT_MS } from '../support/loaded-machine.js';
import { rig } from './engine-rig.js';

// The engine's household against the simulator over real HTTP: each
// member's own list is asked once a TTL, as the hub's is; windows for two customers never overlap.

// The rig's hub customer is 42: it holds a subscription with dependants 43 (entitled by its own
// list) and 44 (its own list suspended).
const SEED: Seed = {
  customers: [
    { id: 42, subscriptions: [{ id: 1, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [43, 44] }] },
    { id: 43, subscriptions: [{ id: 1, customerId: 42, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [43, 44] }] },
    { id: 44, subscriptions: [{ id: 2, subscriptionTypeId: 1, status: 'suspended', dependantCustomerIds: [] }] },
  ],
};

const pairFor = (engine: PairingEngine, deviceId: string, customerId?: number): Promise<LinkOutcome> =>
  engine.pair(deviceId, {
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    onProgress: () => {},
    ...(customerId === undefined ? {} : { customerId }),
  });

const seen = (deviceId: string) => ({ deviceId, source: 'mqtt', at: performance.now() });

describe('the engine and the household', () => {
  it("asks a member's own list once a TTL, however many buttons are linked to it", async () => {
    const { engine, simulator } = await rig({ seed: SEED });
    for (const id of ['H1', 'H2', 'H3']) {
      engine.sighting(seen(id));
      await expect(pairFor(engine, id, 43)).resolves.toMatchObject({ ok: true, record: { customerId: 43 } });
    }
    expect(await engine.household()).toEqual([
      { customerId: 42, entitled: true, role: 'hub' },
      { customerId: 43, entitled: true, role: 'dependant' },
      { customerId: 44, entitled: false, role: 'dependant' },
    ]);
    // 42 once, 43 once; 44 once for the household and again (a negative answer is not reused).
    expect(simulator.stats().subscriptionGets).toBe(3);
    await engine.household();
    expect(simulator.stats().subscriptionGets).toBe(4);
  });

  it('asks again past the TTL', async () => {
    const { engine, simulator } = await rig({ seed: SEED, ttlMs: 0 });
    engine.sighting(seen('T1'));
    await pairFor(engine, 'T1', 43);
    const before = simulator.stats().subscriptionGets;
    engine.sighting(seen('T2'));
    await pairFor(engine, 'T2', 43);
    expect(simulator.stats().subscriptionGets).toBeGreaterThan(before);
  });

  it('refuses a window for one customer while one for another is open, and links a window sighting to its customer', async () => {
    const { engine, simulator } = await rig({ seed: SEED });
    const first = new AbortController();
    const outcomes: LinkOutcome[] = [];
    const window = engine.openWindow(60, { signal: first.signal, onOutcome: (outcome) => outcomes.push(outcome), customerId: 43 });
    await expect.poll(() => engine.windowOpenUntil(), { timeout: REAL_IO_TIMEOUT_MS }).toBeDefined();
    await expect(engine.openWindow(60, { signal: new AbortController().signal, onOutcome: () => {} })).rejects.toThrow(
      'a pairing window for customer 43 is open',
    );
    engine.sighting(seen('W1'));
    await expect.poll(() => outcomes.length, { timeout: REAL_IO_TIMEOUT_MS }).toBe(1);
    first.abort();
    await window;
    expect(outcomes[0]).toMatchObject({ ok: true, record: { deviceId: 'W1', customerId: 43 } });
    expect(simulator.stats().customersByDevice.W1).toEqual([43]);
    // Closed: a window for the hub's own customer opens again.
    const again = new AbortController();
    const next = engine.openWindow(60, { signal: again.signal, onOutcome: () => {} });
    again.abort();
    await expect(next).resolves.toMatchObject({ outcomes: [] });
  });

  it('says in each step whose button it is', async () => {
    const { engine } = await rig({ seed: SEED });
    const customers = new Set<number | undefined>();
    const outcome = engine.pair('S1', {
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      onProgress: (progress) => customers.add(progress.customerId),
      customerId: 43,
    });
    await expect.poll(() => customers.size, { timeout: REAL_IO_TIMEOUT_MS }).toBe(1);
    engine.sighting(seen('S1'));
    await expect(outcome).resolves.toMatchObject({ ok: true });
    expect([...customers]).toEqual([43]);
  });
});
