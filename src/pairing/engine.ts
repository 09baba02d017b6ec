import type { Sighting } from '../sighting.js';
import { PanicPairError } from '../errors.js';
import type { DeviceRecord } from '../store/record.js';
import { ApiHealth } from './api-health.js';
import { decideLink, passesRssiFloor, type LinkTrigger } from './decisions.js';
import { EntitlementGate } from './entitlement-gate.js';
import { CustomerGates, type HouseholdEntry } from './customer-gates.js';
import { WindowCustomers } from './customer-checks.js';
import { otherOwner } from './ownership.js';
import { LinkJobs } from './link-jobs.js';
import { Listeners, type Listener } from './listeners.js';
import { pairButton, type PairContext, type PairOptions } from './pair-button.js';
import { PairingWindows } from './windows.js';
import { SightingMemory } from './sighting-memory.js';
import { HeardButtons } from './heard-buttons.js';
import { SightingWaiters } from './sighting-waiters.js';
import { throughWindowOutages } from './through-outages.js';
import { UnsavedLinks } from './unsaved-links.js';
import { RequestSlots } from '../api/request-slots.js';
import type { HeardEntry, LinkOutcome, PairProgress, ScanEntry, WindowReport } from './types.js';
import type { EntitlementState } from '../api/types.js';
import { monotonicNow, wallNow, wallTimeOf } from '../clock.js';
import type { EngineOptions } from './engine-options.js';

export type { EngineOptions } from './engine-options.js';

// The pairing engine: decides what to link (decisions.ts) and hands the work to the parts beside
// it: link jobs one per device with their background retries and crash recovery (link-jobs.ts),
// `pair <id>` (pair-button.ts), passing failures (through-outages.ts), window customers
// (customer-checks.ts), `scan` (heard-buttons.ts), links the store missed (unsaved-links.ts), and
// its outputs (listeners.ts). It knows nothing of where sightings come from.
export class PairingEngine {
  readonly #options: EngineOptions;
  readonly #clock: () => number;
  readonly #wallClock: () => number;
  readonly #memory = new SightingMemory({ capacity: 2048, maxAgeMs: 10 * 60_000 });
  readonly #heard: HeardButtons;
  readonly #waiters = new SightingWaiters();
  readonly #jobs: LinkJobs;
  /** Linked by the API but not yet durably recorded (the store failed); never posted again. */
  readonly #unsaved: UnsavedLinks;
  readonly #windows: PairingWindows;
  readonly #windowCustomers: WindowCustomers;
  readonly #deviceListeners: Listeners<DeviceRecord>;
  readonly #entitlementListeners: Listeners<EntitlementState>;
  readonly #sightingListeners: Listeners<Sighting>;
  readonly #forgetListeners: Listeners<string>;
  /** What `pair <id>` and a window's links need to ride out outages. */
  readonly #pairing: PairContext;
  readonly health: ApiHealth;
  readonly gate: EntitlementGate;
  /** The hub's gate and one for each household member asked for; see customer-gates.ts. */
  readonly gates: CustomerGates;
  #closing = false;

  constructor(options: EngineOptions) {
    this.#options = options;
    this.#clock = options.clock ?? monotonicNow;
    this.#wallClock = options.wallClock ?? wallNow;
    this.#windows = new PairingWindows(this.#clock, this.#wallClock);
    this.#unsaved = new UnsavedLinks(options.store);
    this.#heard = new HeardButtons({
      memory: this.#memory,
      clock: this.#clock,
      wallClock: this.#wallClock,
      record: (deviceId) => this.record(deviceId),
      recentMs: options.recentSightingMs ?? 30_000,
    });
    this.#deviceListeners = new Listeners(options.logger);
    this.#entitlementListeners = new Listeners(options.logger);
    this.#sightingListeners = new Listeners(options.logger);
    this.#forgetListeners = new Listeners(options.logger);
    this.health = new ApiHealth(options.hasToken);
    const gateFor = (customerId: number, onChange: (state: EntitlementState) => void): EntitlementGate =>
      new EntitlementGate({
        api: options.api,
        customerId,
        ttlMs: options.entitlementTtlMs,
        clock: this.#clock,
        wallClock: this.#wallClock,
        health: this.health,
        onChange,
      });
    this.gate = gateFor(options.customerId, (state) => this.#entitlementListeners.notify(state));
    this.gates = new CustomerGates({ hubCustomerId: options.customerId, hub: this.gate, gateFor: (customerId) => gateFor(customerId, () => {}) });
    this.#windowCustomers = new WindowCustomers(this.gates);
    this.#jobs = new LinkJobs({
      clock: this.#clock,
      wallClock: this.#wallClock,
      logger: options.logger,
      backgroundRetry: options.backgroundRetry,
      closing: () => this.#closing,
      context: {
        record: (deviceId) => this.record(deviceId),
        defaultDeviceTypeId: options.defaultDeviceTypeId,
        api: options.api,
        store: options.store,
        gates: this.gates,
        health: this.health,
        // Twice the request slots: enough written ahead to cover a write that takes longer than
        // a request (an SD card, a busy disk), few enough that a burst never leaves many `linking`.
        staging: new RequestSlots(options.apiConcurrency * 2),
        slots: new RequestSlots(options.apiConcurrency),
        clock: this.#wallClock,
        counters: options.counters,
        logger: options.logger,
        changed: (record) => this.#deviceListeners.notify(record),
        unsaved: (record) => this.#unsaved.keep(record),
      },
    });
    this.#pairing = {
      jobs: this.#jobs,
      apiAddress: options.apiAddress ?? 'the configured address',
      clock: this.#clock,
      closing: () => this.#closing,
      record: (deviceId) => this.record(deviceId),
      hubCustomerId: options.customerId,
      gates: this.gates,
      heard: this.#heard,
      waiters: this.#waiters,
    };
  }

  /** `first`: before the listeners already added (a state the world waits for, before the rest). */
  onDevice(listener: Listener<DeviceRecord>, options: { first?: boolean } = {}): void {
    this.#deviceListeners.add(listener, options.first === true);
  }

  onEntitlement(listener: Listener<EntitlementState>): void {
    this.#entitlementListeners.add(listener);
  }

  /** Every sighting, for live outputs (the installer's page); they must be cheap or coalesce. */
  onSighting(listener: Listener<Sighting>): () => void {
    this.#sightingListeners.add(listener);
    return () => this.#sightingListeners.remove(listener);
  }

  /** Hears the id of each device removed from the store by `forget`. */
  onForget(listener: Listener<string>): void {
    this.#forgetListeners.add(listener);
  }

  /** The hot path: every valid sighting from every source. */
  sighting(sighting: Sighting): void {
    if (this.#closing) return;
    this.#memory.remember(sighting);
    if (this.#sightingListeners.size > 0) this.#sightingListeners.notify(sighting);
    if (this.#waiters.deliver(sighting)) return;
    // No window and no auto-pairing: nothing to decide, and no clock to read (a flood's usual case).
    if (!this.#windows.any && !this.#options.autoPair) return;
    const now = this.#clock();
    const trigger: LinkTrigger | undefined = this.#windows.isOpen(now)
      ? 'window'
      : this.#options.autoPair
        ? 'auto'
        : undefined;
    if (trigger === undefined) return;
    // Only the installer chooses a customer: a window's, else the hub's. Nothing in the sighting does.
    const customerId = trigger === 'window' ? this.#windowCustomers.current() : this.#options.customerId;
    const record = this.record(sighting.deviceId);
    const decision = decideLink({
      record,
      busy: this.#jobs.has(sighting.deviceId),
      trigger,
      strongEnough: passesRssiFloor(sighting, this.#options.minRssi),
      lastFailureAt: this.#jobs.lastFailureAt(sighting.deviceId),
      now,
    });
    if (!decision.link) return;
    if (otherOwner(record, customerId) !== undefined) return;
    const job = this.#jobs.start(sighting, trigger === 'window', customerId);
    if (trigger === 'window') this.#windows.adopt(throughWindowOutages(this.#pairing, this.#windows, job), now);
    else void job.promise.then((outcome) => this.#jobs.logUnattended(outcome));
  }

  /** `pair <deviceId> [--customer N]`: see pair-button.ts. */
  async pair(deviceId: string, options: PairOptions): Promise<LinkOutcome> {
    this.#refuseWhenClosing();
    return pairButton(this.#pairing, deviceId, options);
  }

  /**
   * `pair --window S [--customer N]`: link every strong, unlinked button seen until it closes, to N
   * (the hub's customer when not given). Refused while a window for another customer is open: a
   * sighting must never have two customers to choose from.
   */
  async openWindow(
    seconds: number,
    options: { signal: AbortSignal; onOutcome(outcome: LinkOutcome): void; onProgress?(progress: PairProgress): void; customerId?: number },
  ): Promise<WindowReport> {
    this.#refuseWhenClosing();
    const customerId = options.customerId ?? this.#options.customerId;
    return this.#windowCustomers.admit(customerId, () => this.#windows.open(seconds * 1000, options));
  }

  /** `panic-pair household`: the customers this hub may link buttons to, each entitled now or not. */
  household(): Promise<HouseholdEntry[]> {
    return this.gates.household();
  }

  async forget(deviceId: string): Promise<{ removed: boolean }> {
    if (this.#jobs.has(deviceId)) {
      throw new PanicPairError('usage', `${deviceId} is being linked right now; forget it once that settles`);
    }
    this.#unsaved.drop(deviceId);
    this.#jobs.forget(deviceId);
    const removed = await this.#options.store.remove(deviceId);
    if (removed) this.#forgetListeners.notify(deviceId);
    return { removed };
  }

  /** The store's record, with links the store failed to record laid over it. */
  record(deviceId: string): DeviceRecord | undefined {
    return this.#unsaved.record(deviceId);
  }

  devices(): DeviceRecord[] {
    return this.#unsaved.all();
  }

  scan(seconds: number, signal: AbortSignal): Promise<ScanEntry[]> {
    return this.#heard.scan(seconds, signal);
  }

  /** Buttons heard within the last `withinMs`, at once (the page's live list). */
  heard(withinMs: number): HeardEntry[] {
    return this.#heard.heard(withinMs);
  }

  /**
   * After a crash, `linking` records are requests that may or may not have reached the API: finish
   * them (at most one extra POST each) and report what became of them.
   */
  recover(): Promise<LinkOutcome[]> {
    return this.#jobs.recover();
  }

  /** Writes again the links the store failed to record; true when none is left. */
  retryUnsaved(): Promise<boolean> {
    return this.#unsaved.writeAgain();
  }

  windowOpenUntil(): number | undefined {
    const until = this.#windows.openUntil(this.#clock());
    return until === undefined ? undefined : wallTimeOf(until, { monotonic: this.#clock, wall: this.#wallClock });
  }

  get jobsInFlight(): number {
    return this.#jobs.size;
  }

  get unsavedLinks(): number {
    return this.#unsaved.size;
  }

  /** Links waiting for a background retry. */
  get pendingRetries(): number {
    return this.#jobs.pendingRetries;
  }

  /** Stops new work and waits, at most `timeoutMs`, for jobs under way to settle. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.#closing = true;
    this.#windows.closeAll();
    const settled = this.#jobs.settle().then(() => true);
    const bound = new Promise<boolean>((resolve) => setTimeout(resolve, timeoutMs, false).unref());
    return Promise.race([settled, bound]);
  }

  #refuseWhenClosing(): void {
    if (this.#closing) throw new PanicPairError('failure', 'the daemon is shutting down; try again once it is back');
  }
}
