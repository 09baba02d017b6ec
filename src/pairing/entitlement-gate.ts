import { isEntitled } from '../api/entitlement.js';
import { householdOf, hubAlone, type HouseholdMember } from '../api/household.js';
import type { EntitlementState, PanicApi } from '../api/types.js';
import { PanicPairError } from '../errors.js';
import type { ApiHealth } from './api-health.js';
import { entitlementIsFresh } from './decisions.js';

// No link is attempted for a customer not entitled at that moment. A
// positive answer is reused for the TTL; a negative one, or an error, is asked again next time.
// Callers that arrive while a check is under way share it (one GET for a burst of 300 buttons).
export class EntitlementGate {
  readonly #api: PanicApi;
  readonly #customerId: number;
  readonly #ttlMs: number;
  /** Monotonic: the TTL. */
  readonly #clock: () => number;
  /** Only stamps `checkedAt`. */
  readonly #wallClock: () => number;
  readonly #health: ApiHealth;
  readonly #onChange: (state: EntitlementState) => void;
  #lastPositiveAt: number | undefined;
  #state: EntitlementState;
  #inFlight: Promise<EntitlementState> | undefined;
  #lastError: unknown;
  /** The customer's household, learned from the same answer: this customer alone until one is read. */
  #household: HouseholdMember[];

  constructor(options: {
    api: PanicApi;
    customerId: number;
    ttlMs: number;
    clock: () => number;
    wallClock: () => number;
    health: ApiHealth;
    onChange: (state: EntitlementState) => void;
  }) {
    this.#api = options.api;
    this.#customerId = options.customerId;
    this.#ttlMs = options.ttlMs;
    this.#clock = options.clock;
    this.#wallClock = options.wallClock;
    this.#health = options.health;
    this.#onChange = options.onChange;
    this.#state = { customerId: options.customerId, entitled: null };
    this.#household = hubAlone(options.customerId);
  }

  state(): EntitlementState {
    return this.#state;
  }

  /** The household as the last answer gave it; the customer alone after an error or none. */
  household(): readonly HouseholdMember[] {
    return this.#household;
  }

  /** The state, asking the API only when no positive answer is fresh; never throws. */
  async fresh(): Promise<EntitlementState> {
    if (entitlementIsFresh(this.#lastPositiveAt, this.#clock(), this.#ttlMs)) return this.#state;
    return this.check();
  }

  /** Resolves when the customer is entitled now; otherwise throws an error whose kind says why. */
  async require(): Promise<void> {
    if (entitlementIsFresh(this.#lastPositiveAt, this.#clock(), this.#ttlMs)) return;
    const state = await this.check();
    if (state.entitled === true) return;
    // A refused token, an unknown customer or an unreachable API keeps its own kind (exit code).
    if (this.#lastError !== undefined) throw this.#lastError;
    throw new PanicPairError(
      'not-entitled',
      `customer ${this.#customerId} holds no active subscription; nothing was linked`,
    );
  }

  /** Asks the API now (sharing a check already under way); never throws. */
  check(): Promise<EntitlementState> {
    this.#inFlight ??= this.#ask().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #ask(): Promise<EntitlementState> {
    const checkedAt = this.#clock();
    const stamp = new Date(this.#wallClock()).toISOString();
    let next: EntitlementState;
    try {
      const subscriptions = await this.#api.listSubscriptions(this.#customerId);
      this.#health.succeeded();
      const entitled = isEntitled(this.#customerId, subscriptions);
      this.#lastPositiveAt = entitled ? checkedAt : undefined;
      this.#lastError = undefined;
      this.#household = householdOf(this.#customerId, subscriptions);
      next = { customerId: this.#customerId, entitled, checkedAt: stamp };
    } catch (error) {
      this.#health.failed(error);
      this.#lastPositiveAt = undefined;
      this.#lastError = error;
      this.#household = hubAlone(this.#customerId);
      const message = error instanceof Error ? error.message : String(error);
      // A 404 is an answer (the customer is unknown: not entitled); anything else leaves it unknown.
      const answered = error instanceof PanicPairError && error.kind === 'customer-not-found';
      next = {
        customerId: this.#customerId,
        entitled: answered ? false : null,
        checkedAt: stamp,
        error: message,
      };
    }
    this.#state = next;
    this.#onChange(next);
    return next;
  }
}
