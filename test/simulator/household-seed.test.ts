import { describe, expect, it } from 'vitest';
import { householdOf } from '../../src/api/household.js';
import { isEntitled } from '../../src/api/entitlement.js';
import type { Subscription } from '../../src/api/types.js';
import { DEFAULT_SEED, DEMO_HOUSEHOLD_SEED } from '../../src/simulator/index.js';
import { HOUSEHOLD_SEED } from '../support/household-seed.js';
import { AUTH, call, simulator } from './sim-harness.js';

// A seed describes a household: a subscription held by one customer with dependants, each of
// whom has a list of its own, served as the seed says it.

async function list(url: string, customerId: number): Promise<Subscription[]> {
  const answer = await call(url, `/panic-api/v2/customers/${customerId}/subscriptions`, { headers: AUTH });
  expect(answer.status).toBe(200);
  return answer.json as Subscription[];
}

describe('a household seed', () => {
  it("serves the holder's list and each dependant's own list", async () => {
    const sim = await simulator({ seed: HOUSEHOLD_SEED });
    const holder = await list(sim.url, 70);
    expect(holder).toEqual([{ id: 10, customerId: 70, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [77, 78] }]);
    expect(householdOf(70, holder).map((member) => member.customerId)).toEqual([70, 77, 78]);
    const dependant = await list(sim.url, 77);
    expect(dependant[0]?.customerId).toBe(70);
    expect(isEntitled(77, dependant)).toBe(true);
    expect(isEntitled(78, await list(sim.url, 78))).toBe(false);
  });

  it("the demo's seed has 42 holding a subscription with dependant 43; the default seed is 42 alone", async () => {
    const demo = await simulator({ seed: DEMO_HOUSEHOLD_SEED });
    expect(householdOf(42, await list(demo.url, 42))).toEqual([
      { customerId: 42, role: 'hub' },
      { customerId: 43, role: 'dependant' },
    ]);
    expect(isEntitled(43, await list(demo.url, 43))).toBe(true);
    const plain = await simulator({ seed: DEFAULT_SEED });
    expect(householdOf(42, await list(plain.url, 42))).toEqual([{ customerId: 42, role: 'hub' }]);
    expect((await call(plain.url, '/panic-api/v2/customers/43/subscriptions', { headers: AUTH })).status).toBe(404);
  });
});
