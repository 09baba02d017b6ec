import { errorKindOf, PanicPairError } from '../errors.js';
import type { CustomerGates } from './customer-gates.js';

// Which customer a request may link buttons to, checked before any waiting.

/**
 * Refuses early a customer outside the household or not entitled. An outage is no answer: it is
 * left to the link itself, whose own check rides it out before any POST.
 */
export async function requireMember(gates: CustomerGates, customerId: number): Promise<void> {
  try {
    await gates.require(customerId);
  } catch (error) {
    if (errorKindOf(error) !== 'transient') throw error;
  }
}

/** Open pairing windows by the customer they link to: windows for two customers never overlap. */
export class WindowCustomers {
  readonly #gates: CustomerGates;
  /** How many windows are open for each customer. */
  readonly #open = new Map<number, number>();

  constructor(gates: CustomerGates) {
    this.#gates = gates;
  }

  /**
   * Runs `open` (the window) for `customerId`, counted as open meanwhile. Refused while a window
   * for another customer is open, and for a customer outside the household or not entitled.
   */
  async admit<T>(customerId: number, open: () => Promise<T>): Promise<T> {
    this.#refuseOther(customerId);
    if (customerId !== this.#gates.hubCustomerId) {
      await requireMember(this.#gates, customerId);
      this.#refuseOther(customerId); // one may have opened while the API was asked
    }
    return this.#hold(customerId, open);
  }

  /** The customer of the open windows (one at a time, see admit); the hub's when none. */
  current(): number {
    for (const customerId of this.#open.keys()) return customerId;
    return this.#gates.hubCustomerId;
  }

  #refuseOther(customerId: number): void {
    const other = [...this.#open.keys()].find((open) => open !== customerId);
    if (other === undefined) return;
    throw new PanicPairError('failure', `a pairing window for customer ${other} is open; wait for it to close before opening one for customer ${customerId}`);
  }

  async #hold<T>(customerId: number, run: () => Promise<T>): Promise<T> {
    this.#open.set(customerId, (this.#open.get(customerId) ?? 0) + 1);
    try {
      return await run();
    } finally {
      const left = (this.#open.get(customerId) ?? 1) - 1;
      if (left > 0) this.#open.set(customerId, left);
      else this.#open.delete(customerId);
    }
  }
}
