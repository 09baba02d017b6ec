// One function turns a keyed button's report into verified objects or a
// named refusal. A report counts only when its integrity check verifies with the button's key
// (else `forged`), its counter is greater than the last counted one (else `replayed`), and it is
// encrypted at all (else `plain`). The same counter again within SAME_REPORT_MS is the same report
// heard twice (a second source, a repeated advertisement): counted once, never `replayed`.
import { readBthome, type BthomeReport } from '../discovery/bthome.js';
import { decryptBthome } from './bthome-encryption.js';

/** A button repeats one advertisement for a few seconds, and gateways relay it late: the same
 * counter within this is one report. bthome-ble's rule for equal counters changed back and forth;
 * here it is fixed by time, so a recording played later never counts. */
export const SAME_REPORT_MS = 10_000;

/** The last counted report of a button: its counter, and when it was counted (monotonic). */
export interface LastCounted {
  counter: number;
  at: number;
}

export type Verdict =
  /** A new report of the button: it counts (heard, last heard, battery). */
  | { verdict: 'verified'; counter: number; report: BthomeReport; triggerBased: boolean; mac: string }
  /** The last counted report heard again within SAME_REPORT_MS: already counted. */
  | { verdict: 'repeat'; counter: number }
  /** A valid check on a counter not greater than the last counted one. `wentBack`: below it, as
   * after a battery change (or an older recording). */
  | { verdict: 'replayed'; counter: number; wentBack: boolean }
  | { verdict: 'forged'; why: string }
  | { verdict: 'plain'; why: string };

export type Refusal = 'forged' | 'replayed' | 'plain';

export interface VerifyingWith {
  /** 16 bytes. Never logged, never part of a verdict. */
  key: Uint8Array;
  /** The address the report came from, or the gateway's `id` for it. */
  mac: string;
  last: LastCounted | undefined;
}

/** `serviceData`: the BTHome service data of the report, or undefined when it had none (an
 * announcement, a gateway message without service data). `at`: when heard, monotonic. */
export function verifyReport(serviceData: Uint8Array | undefined, button: VerifyingWith, at: number): Verdict {
  if (serviceData === undefined) return { verdict: 'plain', why: 'a report without BTHome service data' };
  const decrypted = decryptBthome(serviceData, button.key, button.mac);
  if ('refusal' in decrypted) return { verdict: decrypted.refusal, why: decrypted.why };
  const { counter } = decrypted;
  const last = button.last;
  if (last !== undefined && counter <= last.counter) {
    if (counter === last.counter && at - last.at < SAME_REPORT_MS && at >= last.at) return { verdict: 'repeat', counter };
    return { verdict: 'replayed', counter, wentBack: counter < last.counter };
  }
  const reading = readBthome(decrypted.plain);
  // The plain reader accepts what decrypted (version 2, checked above); objects it cannot read end
  // its reading, as in a plain report.
  const report: BthomeReport = 'invalid' in reading ? { triggerBased: decrypted.info.triggerBased, encrypted: true } : { ...reading, encrypted: true };
  return { verdict: 'verified', counter, report, triggerBased: decrypted.info.triggerBased, mac: decrypted.mac };
}
