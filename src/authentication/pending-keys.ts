// `pair <deviceId>` with a key: nothing is posted until a report of the
// button verifies with it. While a key is tried, the button's next report with BTHome data is
// tried with it whatever counter it carries (a re-pairing after a battery change accepts the new
// one): the first that verifies settles the trial, and so does one that does not (exit 9).
// Reports without BTHome data (an announcement of the same id) settle nothing.
import type { Sighting } from '../sighting.js';
import { verifyReport } from './verify-report.js';

export type TrialOutcome =
  /** The report, read with the key, and its counter. */
  | { verified: true; report: Sighting & { counter: number } }
  | { verified: false; why: string };

export interface KeyTrial {
  readonly outcome: Promise<TrialOutcome>;
  /** Stops trying (a timeout, a client gone); the button's reports go on as before. */
  dispose(): void;
}

interface Trial {
  key: Buffer;
  settle(outcome: TrialOutcome): void;
}

export class PendingKeys {
  readonly #trials = new Map<string, Trial>();

  get size(): number {
    return this.#trials.size;
  }

  add(deviceId: string, key: Buffer): KeyTrial {
    this.#trials.get(deviceId)?.settle({ verified: false, why: 'another key is being tried for it' });
    let settle!: (outcome: TrialOutcome) => void;
    const outcome = new Promise<TrialOutcome>((resolve) => (settle = resolve));
    const trial: Trial = {
      key,
      settle: (result) => {
        if (this.#trials.get(deviceId) === trial) this.#trials.delete(deviceId);
        settle(result);
      },
    };
    this.#trials.set(deviceId, trial);
    return { outcome, dispose: () => trial.settle({ verified: false, why: 'no longer tried' }) };
  }

  /** True when the sighting settled a trial (it then goes nowhere else until the key is kept). */
  offer(sighting: Sighting): boolean {
    const trial = this.#trials.get(sighting.deviceId);
    if (trial === undefined) return false;
    const verdict = verifyReport(sighting.sealed?.data, { key: trial.key, mac: sighting.sealed?.address ?? '', last: undefined }, sighting.at);
    if (verdict.verdict === 'verified') {
      const { sealed: _sealed, ...rest } = sighting;
      const report: Sighting & { counter: number } = { ...rest, counter: verdict.counter };
      if (verdict.report.battery !== undefined) report.battery = verdict.report.battery;
      if (verdict.report.batteryLow !== undefined) report.batteryLow = verdict.report.batteryLow;
      if (verdict.triggerBased) report.triggerBased = true;
      trial.settle({ verified: true, report });
      return true;
    }
    // A plain report of BTHome data, or none at all: only data that fails the check, or BTHome sent
    // without encryption, says the key is not this button's.
    if (verdict.verdict === 'plain' && sighting.plainBthome !== true) return false;
    if (verdict.verdict === 'forged' || verdict.verdict === 'plain') {
      trial.settle({ verified: false, why: verdict.why });
      return true;
    }
    return false;
  }
}
