// Trusted buttons at the hub: every sighting from every source passes here before
// supervision and the pairing engine hear it. An unkeyed button's costs one map look-up; a keyed
// button's report is verified with its key and counted, and only a verified one goes on. A
// refused one (`forged`, `replayed`, `plain`) is counted and makes the button `imitated`.
import { monotonicNow, type MonotonicClock } from '../clock.js';
import type { Sighting } from '../sighting.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { RateLimitedWarning } from '../log/rate-limited.js';
import type { ButtonKeyStore } from '../store/button-key-store.js';
import { imitatedWords, KeyedState, type ReportCounts } from './keyed-state.js';
import { PendingKeys, type KeyTrial } from './pending-keys.js';
import { verifyReport, type Refusal, type Verdict } from './verify-report.js';

export interface AuthenticatorOptions {
  keys: ButtonKeyStore;
  /** PANIC_PAIR_BUTTON_KEYS_FILE: keys for buttons not linked yet (windows, automatic pairing). */
  fileKeys: ReadonlyMap<string, Buffer>;
  /** The last counted counters, as saved with the heard times. */
  savedCounters: ReadonlyMap<string, number>;
  /** Names of profiles with `keyRequired`. */
  keyRequired: ReadonlySet<string>;
  counters: Record<Refusal, number>;
  /** A sighting that counts: supervision and the pairing engine. */
  deliver(sighting: Sighting): void;
  /** A sighting of a button whose profile needs a key it has not got: heard, never linked. */
  hearOnly(sighting: Sighting): void;
  /** A keyed button's `imitated` changed: the outputs tell it. */
  changed?(deviceId: string): void;
  logger: Logger;
  clock?: MonotonicClock;
}

export class Authenticator {
  readonly #options: AuthenticatorOptions;
  readonly #clock: MonotonicClock;
  readonly #buttons = new Map<string, KeyedState>();
  readonly #trials = new PendingKeys();
  /** `pair <deviceId>` without a key, waiting: told when the button turns out to need one. */
  readonly #keyNeeded = new Map<string, (profile: string) => void>();
  readonly #warnings: RateLimitedWarning;

  constructor(options: AuthenticatorOptions) {
    this.#options = options;
    this.#clock = options.clock ?? monotonicNow;
    this.#warnings = new RateLimitedWarning({ logger: options.logger, summary: (n) => `${n} more reports of keyed buttons refused` });
    const now = this.#clock();
    for (const [deviceId, key] of options.fileKeys) this.#buttons.set(deviceId, new KeyedState(key, false, options.savedCounters.get(deviceId), now));
    for (const deviceId of options.keys.ids()) {
      this.#buttons.set(deviceId, new KeyedState(options.keys.get(deviceId)!, true, options.savedCounters.get(deviceId), now));
    }
  }

  /** The hot path: every valid sighting from every source. */
  sighting(sighting: Sighting): void {
    if (this.#trials.size > 0 && this.#trials.offer(sighting)) return;
    const state = this.#buttons.size === 0 ? undefined : this.#buttons.get(sighting.deviceId);
    if (state === undefined) {
      if (sighting.profile !== undefined && this.#options.keyRequired.has(sighting.profile)) {
        this.#options.hearOnly(sighting);
        this.#keyNeeded.get(sighting.deviceId)?.(sighting.profile);
      } else this.#options.deliver(sighting);
      return;
    }
    const verdict = verifyReport(sighting.sealed?.data, { key: state.key, mac: sighting.sealed?.address ?? '', last: state.last }, sighting.at);
    if (verdict.verdict === 'verified') {
      state.last = { counter: verdict.counter, at: sighting.at };
      state.counts.verified += 1;
      this.#options.deliver(opened(sighting, verdict));
    } else if (verdict.verdict === 'repeat') {
      // The same report through a second source: it says that source hears the button.
      this.#options.deliver(withoutData(sighting));
    } else {
      this.#refused(sighting, state, verdict);
    }
  }

  /** `pair <deviceId>` with a key: the next report of the button is tried with it (see pending-keys.ts). */
  tryKey(deviceId: string, key: Buffer): KeyTrial {
    return this.#trials.add(deviceId, key);
  }

  /** Calls `listener` with the profile's name when a report shows the button's profile has
   * `keyRequired` and the hub has no key for it; returns the way to stop listening. */
  whenKeyNeeded(deviceId: string, listener: (profile: string) => void): () => void {
    this.#keyNeeded.set(deviceId, listener);
    return () => {
      if (this.#keyNeeded.get(deviceId) === listener) this.#keyNeeded.delete(deviceId);
    };
  }

  /** A key that verified a report: kept durably, its counter accepted (a re-pairing after a battery
   * change), then the report delivered. */
  async adopt(deviceId: string, key: Buffer, report: Sighting & { counter: number }): Promise<void> {
    await this.#options.keys.set(deviceId, key);
    const state = new KeyedState(key, true, undefined, report.at);
    const before = this.#buttons.get(deviceId);
    if (before !== undefined) Object.assign(state.counts, before.counts);
    state.last = { counter: report.counter, at: report.at };
    state.counts.verified += 1;
    this.#buttons.set(deviceId, state);
    this.#options.deliver(report);
    if (before?.imitated(report.at) === true) this.#options.changed?.(deviceId);
  }

  /** A button linked with a key from PANIC_PAIR_BUTTON_KEYS_FILE: the key is stored with it. */
  linked(deviceId: string): void {
    const state = this.#buttons.get(deviceId);
    if (state === undefined || state.stored) return;
    state.stored = true;
    this.#options.keys.set(deviceId, state.key).catch((error: unknown) => {
      state.stored = false;
      this.#options.logger.error({ deviceId, err: messageOf(error) }, 'could not store the key of a linked button; PANIC_PAIR_BUTTON_KEYS_FILE still holds it');
    });
  }

  /** `forget`: the key goes with the button (a key in PANIC_PAIR_BUTTON_KEYS_FILE stays there). */
  async forget(deviceId: string): Promise<void> {
    const state = this.#buttons.get(deviceId);
    if (state === undefined) return;
    await this.#options.keys.remove(deviceId);
    const fileKey = this.#options.fileKeys.get(deviceId);
    if (fileKey === undefined) this.#buttons.delete(deviceId);
    else this.#buttons.set(deviceId, new KeyedState(fileKey, false, undefined, this.#clock()));
  }

  /** The key PANIC_PAIR_BUTTON_KEYS_FILE gives a button not yet paired with one. */
  fileKey(deviceId: string): Buffer | undefined {
    return this.#buttons.get(deviceId)?.stored === true ? undefined : this.#options.fileKeys.get(deviceId);
  }

  keyed(deviceId: string): boolean {
    return this.#buttons.get(deviceId)?.stored === true;
  }

  reports(deviceId: string): ReportCounts | undefined {
    const state = this.#buttons.get(deviceId);
    return state?.stored === true ? { ...state.counts } : undefined;
  }

  imitated(deviceId: string): boolean {
    const state = this.#buttons.get(deviceId);
    return state?.stored === true && state.imitated(this.#clock());
  }

  /** The last counted counter, saved with the heard times. */
  counter(deviceId: string): number | undefined {
    return this.#buttons.get(deviceId)?.last?.counter;
  }

  /** `status`'s problems: each keyed button imitated in the last hour. */
  problems(): string[] {
    const now = this.#clock();
    const problems: string[] = [];
    for (const [deviceId, state] of this.#buttons) if (state.stored && state.imitated(now)) problems.push(imitatedWords(deviceId, state));
    return problems;
  }

  #refused(sighting: Sighting, state: KeyedState, verdict: Exclude<Verdict, { verdict: 'verified' | 'repeat' }>): void {
    const refusal = verdict.verdict;
    const wasImitated = state.imitated(sighting.at);
    state.counts[refusal] += 1;
    this.#options.counters[refusal] += 1;
    state.refusedAt = sighting.at;
    state.refusal = refusal;
    state.wentBack = verdict.verdict === 'replayed' && verdict.wentBack;
    // Never the key nor the data: the device, the source and the kind of refusal.
    const why = verdict.verdict === 'replayed' ? (verdict.wentBack ? 'its counter went back' : 'its counter was counted already') : verdict.why;
    this.#warnings.warn({ deviceId: sighting.deviceId, source: sighting.source, refusal, why }, `a report of a keyed button was refused (${refusal})`);
    if (!wasImitated && state.stored) this.#options.changed?.(sighting.deviceId);
  }
}

/** A verified report as the rest of the hub reads a plain one: its battery and trigger bit. */
function opened(sighting: Sighting, verdict: Extract<Verdict, { verdict: 'verified' }>): Sighting {
  const next = withoutData(sighting);
  const { report } = verdict;
  if (report.battery !== undefined) next.battery = report.battery;
  if (report.batteryLow !== undefined) next.batteryLow = report.batteryLow;
  if (verdict.triggerBased) next.triggerBased = true;
  return next;
}

function withoutData(sighting: Sighting): Sighting {
  const { sealed: _sealed, ...rest } = sighting;
  return rest;
}
