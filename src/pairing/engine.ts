import type { PanicApi } from '../api/types.js';
import type { Counters } from '../daemon/counters.js';
import type { Sighting } from '../discovery/sighting.js';
import type { RetryPolicy } from '../api/retry-delay.js';
import { BackgroundRetries } from './background-retries.js';
import { abortableDelay, raceAbort, reasonOf, seconds, timedOut, timeoutSignal } from './deadline.js';
import { errorKindOf, messageOf, PanicPairError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { DeviceRecord } from '../store/record.js';
import { ApiHealth } from './api-health.js';
import { decideLink, passesRssiFloor, type LinkTrigger } from './decisions.js';
import { EntitlementGate } from './entitlement-gate.js';
import { CustomerGates, type HouseholdEntry } from './customer-gates.js';
import { belongsMessage, otherOwner } from './ownership.js';
import { runLinkJob, type DeviceStore, type LinkJobContext } from './link-job.js';
import { PairingWindows } from './windows.js';
import { SightingMemory } from './sighting-memory.js';
import { RequestSlots } from '../api/request-slots.js';
import type { EntitlementState, LinkOutcome, PairProgress, PairStep, ScanEntry, WindowReport } from './types.js';
import { monotonicNow, wallNow, wallTimeOf } from '../clock.js';
import { isPassingFailure, KEEPS_TRYING, outageRetryMs, outageText, type OutageWait } from './outage.js';

export interface EngineOptions {
  customerId: number;
  defaultDeviceTypeId?: number;
  api: PanicApi;
  store: DeviceStore;
  hasToken: boolean;
  apiConcurrency: number;
  entitlementTtlMs: number;
  minRssi: number;
  autoPair: boolean;
  counters: Counters;
  logger: Logger;
  /** Monotonic ms (src/clock.ts): every duration. */
  clock?: () => number;
  /** Epoch ms: only stamps records and reports. */
  wallClock?: () => number;
  /** How failed links are tried again in the background; tests shorten it. */
  backgroundRetry?: RetryPolicy;
  /** A sighting this recent lets `pair <id>` start at once. */
  recentSightingMs?: number;
  /** The API's base address, for the installer's messages during an outage (never the token). */
  apiAddress?: string;
}

interface Job {
  promise: Promise<LinkOutcome>;
  /** Asked for by an installer or left by a crash (not automatic pairing): retried in the background. */
  asked: boolean;
  /** Whose button this job links (CONTRACT.md section 10). */
  customerId: number;
  /** What started it, to start it again after a passing failure. */
  sighting: Sighting;
  step: PairStep;
  listeners: Set<(step: PairStep) => void>;
}

type Listener<T> = (value: T) => void;

// The pairing engine: decides what to link (decisions.ts), runs one job per device at a time
// (link-job.ts), and reports through listeners. It knows nothing of where sightings come from.
export class PairingEngine {
  readonly #options: EngineOptions;
  readonly #clock: () => number;
  readonly #wallClock: () => number;
  readonly #apiAddress: string;
  readonly #memory = new SightingMemory({ capacity: 2048, maxAgeMs: 10 * 60_000 });
  readonly #jobs = new Map<string, Job>();
  readonly #waiters = new Map<string, Set<Listener<Sighting>>>();
  /** When each device's last attempt failed, to hold back sightings for a while. */
  readonly #lastFailure = new Map<string, number>();
  readonly #retries: BackgroundRetries;
  /** Linked by the API but not yet durably recorded (the store failed); never posted again. */
  readonly #unsaved = new Map<string, DeviceRecord>();
  readonly #windows: PairingWindows;
  readonly #deviceListeners = new Set<Listener<DeviceRecord>>();
  readonly #entitlementListeners = new Set<Listener<EntitlementState>>();
  readonly #sightingListeners = new Set<Listener<Sighting>>();
  readonly #forgetListeners = new Set<Listener<string>>();
  readonly #context: LinkJobContext;
  readonly health: ApiHealth;
  readonly gate: EntitlementGate;
  /** The hub's gate and one for each household member asked for; see customer-gates.ts. */
  readonly gates: CustomerGates;
  /** Open pairing windows by the customer they link to: windows for two customers never overlap. */
  readonly #windowCustomers = new Map<number, number>();
  #closing = false;

  constructor(options: EngineOptions) {
    this.#options = options;
    this.#clock = options.clock ?? monotonicNow;
    this.#wallClock = options.wallClock ?? wallNow;
    this.#apiAddress = options.apiAddress ?? 'the configured address';
    this.#windows = new PairingWindows(this.#clock, this.#wallClock);
    this.#retries = new BackgroundRetries({
      policy: options.backgroundRetry,
      clock: this.#wallClock,
      logger: options.logger,
      retry: (target) => {
        if (this.#closing || this.#jobs.has(target.deviceId)) return 'later';
        if (this.record(target.deviceId)?.state === 'linked') return 'done';
        void this.#start({ ...target, at: this.#clock() }, true, target.customerId).promise.then((outcome) => this.#logAutomatic(outcome));
        return 'started';
      },
    });
    this.health = new ApiHealth(options.hasToken);
    this.gate = new EntitlementGate({
      api: options.api,
      customerId: options.customerId,
      ttlMs: options.entitlementTtlMs,
      clock: this.#clock,
      wallClock: this.#wallClock,
      health: this.health,
      onChange: (state) => this.#notify(this.#entitlementListeners, state),
    });
    this.gates = new CustomerGates({
      hubCustomerId: options.customerId,
      hub: this.gate,
      gateFor: (customerId) =>
        new EntitlementGate({
          api: options.api,
          customerId,
          ttlMs: options.entitlementTtlMs,
          clock: this.#clock,
          wallClock: this.#wallClock,
          health: this.health,
          onChange: () => {},
        }),
    });
    this.#context = {
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
      changed: (record) => this.#notify(this.#deviceListeners, record),
      unsaved: (record) => this.#unsaved.set(record.deviceId, record),
    };
  }

  onDevice(listener: Listener<DeviceRecord>): void {
    this.#deviceListeners.add(listener);
  }

  onEntitlement(listener: Listener<EntitlementState>): void {
    this.#entitlementListeners.add(listener);
  }

  /** Every sighting, for live outputs (the installer's page); they must be cheap or coalesce. */
  onSighting(listener: Listener<Sighting>): () => void {
    this.#sightingListeners.add(listener);
    return () => this.#sightingListeners.delete(listener);
  }

  /** Hears the id of each device removed from the store by `forget`. */
  onForget(listener: Listener<string>): void {
    this.#forgetListeners.add(listener);
  }

  /** The hot path: every valid sighting from every source. */
  sighting(sighting: Sighting): void {
    if (this.#closing) return;
    this.#memory.remember(sighting);
    if (this.#sightingListeners.size > 0) this.#notify(this.#sightingListeners, sighting);
    // Most sightings find nobody waiting; a flood of them should not pay a lookup each.
    const waiters = this.#waiters.size === 0 ? undefined : this.#waiters.get(sighting.deviceId);
    if (waiters !== undefined) {
      this.#waiters.delete(sighting.deviceId);
      for (const waiter of waiters) waiter(sighting);
      return;
    }
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
    const customerId = trigger === 'window' ? this.#windowCustomer() : this.#options.customerId;
    const decision = decideLink({
      record: this.record(sighting.deviceId),
      busy: this.#jobs.has(sighting.deviceId),
      trigger,
      strongEnough: passesRssiFloor(sighting, this.#options.minRssi),
      lastFailureAt: this.#lastFailure.get(sighting.deviceId),
      now,
    });
    if (!decision.link) return;
    if (otherOwner(this.record(sighting.deviceId), customerId) !== undefined) return;
    const job = this.#start(sighting, trigger === 'window', customerId);
    if (trigger === 'window') this.#windows.adopt(this.#throughWindowOutages(job), now);
    else void job.promise.then((outcome) => this.#logAutomatic(outcome));
  }

  /**
   * `pair <deviceId> [--customer N]`: link this button to N (the hub's customer when not given) as
   * soon as it is seen (at once if seen just now). N other than the hub's customer is checked
   * before waiting: in the household and entitled by its own list (customer-gates.ts).
   */
  async pair(
    deviceId: string,
    options: { timeoutMs: number; signal: AbortSignal; onProgress(progress: PairProgress): void; customerId?: number },
  ): Promise<LinkOutcome> {
    this.#refuseWhenClosing();
    const customerId = options.customerId ?? this.#options.customerId;
    const timeout = timeoutSignal(options.timeoutMs, options.signal);
    try {
      const record = this.record(deviceId);
      if (record !== undefined && otherOwner(record, customerId) !== undefined) throw new PanicPairError('failure', belongsMessage(record, customerId));
      if (record?.state === 'linked') return { ok: true, record, alreadyLinked: true };
      if (customerId !== this.#options.customerId) await this.#requireMember(customerId);
      const running = this.#jobs.get(deviceId);
      const sighting =
        running === undefined
          ? (this.#recentSighting(deviceId) ?? (await this.#waitForSighting(deviceId, timeout.signal, options.onProgress, customerId)))
          : undefined;
      const job = this.#jobs.get(deviceId) ?? (sighting ? this.#start(sighting, true, customerId) : undefined);
      if (job === undefined) throw new PanicPairError('failure', `no link job for ${deviceId}`);
      if (job.customerId !== customerId) {
        throw new PanicPairError('failure', `${deviceId} is being linked to customer ${job.customerId} right now, not ${customerId}; a button is linked to one customer only`);
      }
      job.asked = true;
      const progress = (step: PairStep, wait?: OutageWait): void =>
        options.onProgress({ deviceId, step, customerId, ...sourceOf(sighting), ...(wait ? { wait } : {}) });
      return await this.#throughOutages(job, {
        signal: timeout.signal,
        progress,
        onTimeout: (last) =>
          last === undefined
            ? timedOut(deviceId, `the API did not answer about ${deviceId} within ${seconds(options.timeoutMs)}; it is still being linked, see \`panic-pair devices\``)
            : timedOut(deviceId, `${deviceId} was not linked within ${seconds(options.timeoutMs)}: ${outageText(this.#apiAddress, last.message)}; ${KEEPS_TRYING}`),
      });
    } catch (error) {
      if (error instanceof PanicPairError) return { ok: false, deviceId, kind: error.kind, message: error.message };
      throw error;
    } finally {
      timeout.dispose();
    }
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
    this.#refuseOtherWindow(customerId);
    if (customerId !== this.#options.customerId) {
      await this.#requireMember(customerId);
      this.#refuseOtherWindow(customerId); // one may have opened while the API was asked
    }
    this.#windowCustomers.set(customerId, (this.#windowCustomers.get(customerId) ?? 0) + 1);
    try {
      return await this.#windows.open(seconds * 1000, options);
    } finally {
      const left = (this.#windowCustomers.get(customerId) ?? 1) - 1;
      if (left > 0) this.#windowCustomers.set(customerId, left);
      else this.#windowCustomers.delete(customerId);
    }
  }

  /** `panic-pair household`: the customers this hub may link buttons to, each entitled now or not. */
  household(): Promise<HouseholdEntry[]> {
    return this.gates.household();
  }

  async forget(deviceId: string): Promise<{ removed: boolean }> {
    if (this.#jobs.has(deviceId)) {
      throw new PanicPairError('usage', `${deviceId} is being linked right now; forget it once that settles`);
    }
    this.#unsaved.delete(deviceId);
    this.#lastFailure.delete(deviceId);
    this.#retries.cancel(deviceId);
    const removed = await this.#options.store.remove(deviceId);
    if (removed) this.#notify(this.#forgetListeners, deviceId);
    return { removed };
  }

  /** The store's record, with links the store failed to record laid over it. */
  record(deviceId: string): DeviceRecord | undefined {
    return this.#unsaved.get(deviceId) ?? this.#options.store.get(deviceId);
  }

  devices(): DeviceRecord[] {
    if (this.#unsaved.size === 0) return this.#options.store.all();
    return this.#options.store.all().map((record) => this.#unsaved.get(record.deviceId) ?? record);
  }

  async scan(seconds: number, signal: AbortSignal): Promise<ScanEntry[]> {
    const since = this.#clock() - seconds * 1000;
    await abortableDelay(seconds * 1000, signal);
    return this.#heardSince(since);
  }

  /** Buttons heard within the last `withinMs`, at once (the page's live list). */
  heard(withinMs: number): ScanEntry[] {
    return this.#heardSince(this.#clock() - withinMs);
  }

  #heardSince(since: number): ScanEntry[] {
    return this.#memory.since(since, this.#clock()).map((seen) => {
      const entry: ScanEntry = { deviceId: seen.deviceId, source: seen.source, lastSeen: this.#stamp(seen.lastSeen) };
      if (seen.rssi !== undefined) entry.rssi = seen.rssi;
      if (seen.deviceTypeId !== undefined) entry.deviceTypeId = seen.deviceTypeId;
      const state = this.record(seen.deviceId)?.state;
      if (state !== undefined) entry.state = state;
      return entry;
    });
  }

  /**
   * After a crash, `linking` records are requests that may or may not have reached the API: finish
   * them (at most one extra POST each) and report what became of them.
   */
  async recover(): Promise<LinkOutcome[]> {
    const interrupted = this.#options.store.all().filter((record) => record.state === 'linking');
    if (interrupted.length === 0) return [];
    this.#options.logger.warn({ devices: interrupted.map((r) => r.deviceId) }, 'finishing links interrupted by a restart');
    const outcomes = await Promise.all(
      interrupted.map((record) =>
        // The record's own customer: a crash never moves a button to someone else.
        this.#start({ deviceId: record.deviceId, source: record.source, deviceTypeId: record.deviceTypeId, at: this.#clock() }, true, record.customerId)
          .promise,
      ),
    );
    outcomes.forEach((outcome) => this.#logAutomatic(outcome));
    return outcomes;
  }

  /** Writes again the links the store failed to record; true when none is left. */
  async retryUnsaved(): Promise<boolean> {
    for (const [deviceId, record] of this.#unsaved) {
      try {
        await this.#options.store.put(record);
        this.#unsaved.delete(deviceId);
      } catch {
        return false;
      }
    }
    return true;
  }

  windowOpenUntil(): number | undefined {
    const until = this.#windows.openUntil(this.#clock());
    return until === undefined ? undefined : wallTimeOf(until, { monotonic: this.#clock, wall: this.#wallClock });
  }

  /** The wall time of a monotonic instant, as an ISO stamp. */
  #stamp(at: number): string {
    return new Date(wallTimeOf(at, { monotonic: this.#clock, wall: this.#wallClock })).toISOString();
  }

  get jobsInFlight(): number {
    return this.#jobs.size;
  }

  get unsavedLinks(): number {
    return this.#unsaved.size;
  }

  /** Stops new work and waits, at most `timeoutMs`, for jobs under way to settle. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.#closing = true;
    this.#windows.closeAll();
    this.#retries.cancelAll();
    const settled = Promise.allSettled([...this.#jobs.values()].map((job) => job.promise)).then(() => true);
    const bound = new Promise<boolean>((resolve) => setTimeout(resolve, timeoutMs, false).unref());
    return Promise.race([settled, bound]);
  }

  #start(sighting: Sighting, asked: boolean, customerId: number): Job {
    const existing = this.#jobs.get(sighting.deviceId);
    if (existing !== undefined) return existing;
    const job: Job = { asked, customerId, sighting, step: 'checking', listeners: new Set(), promise: undefined as unknown as Promise<LinkOutcome> };
    const step = (next: PairStep): void => {
      job.step = next;
      for (const listener of job.listeners) listener(next);
    };
    const target = { deviceId: sighting.deviceId, source: sighting.source, deviceTypeId: sighting.deviceTypeId, customerId };
    job.promise = runLinkJob(this.#context, target, step)
      .catch((error: unknown): LinkOutcome => ({ ok: false, deviceId: target.deviceId, kind: 'failure', message: messageOf(error) }))
      .then((outcome) => {
        this.#jobs.delete(sighting.deviceId);
        if (outcome.ok) this.#lastFailure.delete(sighting.deviceId);
        else this.#lastFailure.set(sighting.deviceId, this.#clock());
        if (job.asked && !this.#closing) this.#retries.after(target, outcome);
        else this.#retries.cancel(target.deviceId);
        return outcome;
      });
    this.#jobs.set(sighting.deviceId, job);
    return job;
  }

  /**
   * A job seen through passing failures (CONTRACT.md section 9): after each, a short wait shown
   * to the installer, then the link again, until it ends another way or `signal` fires (the
   * time is up) or `tryAgain` says the next try comes too late. Resolves with the last outcome.
   */
  async #throughOutages(
    first: Job,
    options: {
      signal: AbortSignal;
      progress(step: PairStep, wait?: OutageWait): void;
      /** The time is up; `last` is the passing failure being waited out, if any. */
      onTimeout(last: (LinkOutcome & { ok: false }) | undefined): Error;
      tryAgain?(inMs: number): boolean;
    },
  ): Promise<LinkOutcome> {
    let job = first;
    let last: (LinkOutcome & { ok: false }) | undefined;
    for (let attempt = 1; ; attempt += 1) {
      const report = (step: PairStep): void => options.progress(step);
      report(job.step);
      job.listeners.add(report);
      let outcome: LinkOutcome;
      try {
        outcome = await raceAbort(job.promise, options.signal, () => options.onTimeout(last));
      } finally {
        job.listeners.delete(report);
      }
      const inMs = outageRetryMs(attempt);
      if (!isPassingFailure(outcome) || this.#closing || options.signal.aborted) return outcome;
      last = outcome;
      if (options.tryAgain?.(inMs) === false) return outcome;
      options.progress('retrying', { api: this.#apiAddress, reason: outcome.message, inMs });
      await abortableDelay(inMs, options.signal);
      if (options.signal.aborted) throw reasonOf(options.signal, () => options.onTimeout(last));
      if (this.#closing) return outcome;
      // The background retry of this same link may have finished it during the wait.
      const linked = this.record(job.sighting.deviceId);
      if (linked?.state === 'linked') return { ok: true, record: linked, alreadyLinked: false };
      const next = this.#jobs.get(job.sighting.deviceId) ?? this.#start({ ...job.sighting, at: this.#clock() }, true, job.customerId);
      // Started meanwhile for another customer (another installer's request): not ours to follow.
      if (next.customerId !== job.customerId) return outcome;
      next.asked = true;
      job = next;
    }
  }

  /** A window's link, tried again through passing failures while the window stays open. */
  async #throughWindowOutages(job: Job): Promise<LinkOutcome> {
    const { deviceId } = job.sighting;
    const outcome = await this.#throughOutages(job, {
      signal: new AbortController().signal,
      progress: (step, wait) => this.#windows.tell({ deviceId, step, ...sourceOf(job.sighting), ...(wait ? { wait } : {}) }),
      onTimeout: () => new PanicPairError('failure', 'the window was cancelled'),
      tryAgain: (inMs) => this.#windows.isOpen(this.#clock() + inMs),
    });
    if (!isPassingFailure(outcome)) return outcome;
    return { ...outcome, message: `not linked while the window was open: ${outageText(this.#apiAddress, outcome.message)}; ${KEEPS_TRYING}` };
  }

  /**
   * Refuses early a customer outside the household or not entitled. An outage is no answer: it is
   * left to the link itself, whose own check rides it out (CONTRACT.md section 9) before any POST.
   */
  async #requireMember(customerId: number): Promise<void> {
    try {
      await this.gates.require(customerId);
    } catch (error) {
      if (errorKindOf(error) !== 'transient') throw error;
    }
  }

  /** Links waiting for a background retry. */
  get pendingRetries(): number {
    return this.#retries.size;
  }

  #recentSighting(deviceId: string): Sighting | undefined {
    const seen = this.#memory.recent(deviceId, this.#clock(), this.#options.recentSightingMs ?? 30_000);
    if (seen === undefined) return undefined;
    return { deviceId, source: seen.source, rssi: seen.rssi, deviceTypeId: seen.deviceTypeId, at: seen.lastSeen };
  }

  #refuseOtherWindow(customerId: number): void {
    const other = [...this.#windowCustomers.keys()].find((open) => open !== customerId);
    if (other === undefined) return;
    throw new PanicPairError('failure', `a pairing window for customer ${other} is open; wait for it to close before opening one for customer ${customerId}`);
  }

  /** The customer of the open windows (one at a time, see openWindow). */
  #windowCustomer(): number {
    for (const customerId of this.#windowCustomers.keys()) return customerId;
    return this.#options.customerId;
  }

  #waitForSighting(
    deviceId: string,
    signal: AbortSignal,
    onProgress: (progress: PairProgress) => void,
    customerId: number,
  ): Promise<Sighting> {
    onProgress({ deviceId, step: 'waiting', customerId });
    return new Promise<Sighting>((resolve, reject) => {
      const waiters = this.#waiters.get(deviceId) ?? new Set<Listener<Sighting>>();
      this.#waiters.set(deviceId, waiters);
      const onAbort = (): void => {
        waiters.delete(resolveAndClean);
        if (waiters.size === 0 && this.#waiters.get(deviceId) === waiters) this.#waiters.delete(deviceId);
        // The time-out's own reason says only "not linked"; say which step ran out of time.
        reject(reasonOf(signal, () => timedOut(deviceId, `button ${deviceId} was not seen`)));
      };
      const resolveAndClean = (sighting: Sighting): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(sighting);
      };
      waiters.add(resolveAndClean);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A listener that throws (an output failing) must never stall a link job. */
  #notify<T>(listeners: Set<Listener<T>>, value: T): void {
    for (const listener of listeners) {
      try {
        listener(value);
      } catch (error) {
        this.#options.logger.error({ err: messageOf(error) }, 'a state listener failed');
      }
    }
  }

  #logAutomatic(outcome: LinkOutcome): void {
    if (outcome.ok) this.#options.logger.info({ deviceId: outcome.record.deviceId, linkId: outcome.record.linkId }, 'linked');
    else this.#options.logger.warn({ deviceId: outcome.deviceId, kind: outcome.kind, reason: outcome.message }, 'not linked');
  }

  #refuseWhenClosing(): void {
    if (this.#closing) throw new PanicPairError('failure', 'the daemon is shutting down; try again once it is back');
  }
}

function sourceOf(sighting: Sighting | undefined): { source?: string; rssi?: number } {
  if (sighting === undefined) return {};
  return sighting.rssi === undefined ? { source: sighting.source } : { source: sighting.source, rssi: sighting.rssi };
}
