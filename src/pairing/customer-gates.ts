import type { HouseholdMember, HouseholdRole } from '../api/household.js';
import { errorKindOf, PanicPairError } from '../errors.js';
import type { EntitlementGate } from './entitlement-gate.js';

/** One row of `panic-pair household`: a customer this hub may link buttons to, and whether now. */
export interface HouseholdEntry {
  customerId: number;
  /** By the customer's own subscription list; null while the API cannot say. */
  entitled: boolean | null;
  role: HouseholdRole;
}

// The hub's customer C has a gate of its own (entitlement-gate.ts), which
// also learns C's household. Every other customer N of that household has a gate beside it, asking
// N's own subscription list, cached for the TTL as C's is. Only customers in the household get a
// gate, so nothing from outside can grow this map.
export class CustomerGates {
  readonly hub: EntitlementGate;
  readonly #hubCustomerId: number;
  readonly #members = new Map<number, EntitlementGate>();
  readonly #gateFor: (customerId: number) => EntitlementGate;

  constructor(options: { hubCustomerId: number; hub: EntitlementGate; gateFor(customerId: number): EntitlementGate }) {
    this.hub = options.hub;
    this.#hubCustomerId = options.hubCustomerId;
    this.#gateFor = options.gateFor;
  }

  get hubCustomerId(): number {
    return this.#hubCustomerId;
  }

  /** The household's ids as last learned, the hub's customer first; no request is made. */
  householdIds(): number[] {
    return this.hub.household().map((member) => member.customerId);
  }

  /**
   * Resolves when buttons may be linked to `customerId` now: the hub's customer by its own
   * entitlement; any other customer only when it is in the household and entitled by its own
   * subscription list. Otherwise throws an error whose kind gives the exit code (3 for every
   * "no" about that customer), naming the customer and why.
   */
  async require(customerId: number): Promise<void> {
    const hubId = this.#hubCustomerId;
    if (customerId === hubId) return this.hub.require();
    try {
      await this.hub.require();
    } catch (error) {
      if (errorKindOf(error) !== 'not-entitled') throw error;
      throw new PanicPairError(
        'not-entitled',
        `customer ${customerId} is not in the household: customer ${hubId}, the hub's customer, holds no active subscription; nothing was linked`,
      );
    }
    const members = this.hub.household();
    this.#prune(members);
    if (!members.some((member) => member.customerId === customerId)) {
      throw new PanicPairError(
        'not-entitled',
        `customer ${customerId} is not in the household of customer ${hubId} (${householdWords(members.map((m) => m.customerId), hubId)}): no active subscription of customer ${hubId} names it; nothing was linked`,
      );
    }
    try {
      await this.#gate(customerId).require();
    } catch (error) {
      if (errorKindOf(error) === 'customer-not-found') {
        throw new PanicPairError('not-entitled', `customer ${customerId} is not known to the API (404 for its subscriptions); nothing was linked`);
      }
      if (errorKindOf(error) === 'not-entitled') {
        throw new PanicPairError(
          'not-entitled',
          `customer ${customerId} holds no active subscription on its own subscription list (it is in the household of customer ${hubId}); nothing was linked`,
        );
      }
      throw error;
    }
  }

  /** `panic-pair household`: every member with its entitlement now (cached answers within the TTL). */
  async household(): Promise<HouseholdEntry[]> {
    const hubState = await this.hub.fresh();
    const members = this.hub.household();
    this.#prune(members);
    return Promise.all(
      members.map(async (member): Promise<HouseholdEntry> => {
        const entitled = member.role === 'hub' ? hubState.entitled : (await this.#gate(member.customerId).fresh()).entitled;
        return { customerId: member.customerId, entitled, role: member.role };
      }),
    );
  }

  #gate(customerId: number): EntitlementGate {
    let gate = this.#members.get(customerId);
    if (gate === undefined) {
      gate = this.#gateFor(customerId);
      this.#members.set(customerId, gate);
    }
    return gate;
  }

  /** A customer who left the household loses its cached answer with it. */
  #prune(members: readonly HouseholdMember[]): void {
    for (const customerId of this.#members.keys()) {
      if (!members.some((member) => member.customerId === customerId)) this.#members.delete(customerId);
    }
  }
}

/** "customer 42 alone", or "customers 42, 77, 78". */
function householdWords(members: number[], hubId: number): string {
  return members.length <= 1 ? `customer ${hubId} alone` : `customers ${members.join(', ')}`;
}
