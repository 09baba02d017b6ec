// What the hub keeps of each button it has a key for: the key, the last counted counter, and how
// its reports have fared, for `devices`, `status` and the `imitated` problem.
import type { LastCounted, Refusal } from './verify-report.js';

import type { ReportCounts } from '../supervision/types.js';

export type { ReportCounts };

/** A refusal in the last hour makes a keyed button `imitated`. */
export const IMITATED_FOR_MS = 60 * 60_000;

export class KeyedState {
  key: Buffer;
  /** Stored in the key store: the button was paired with it. A key read only from
   * PANIC_PAIR_BUTTON_KEYS_FILE is stored once its button is linked. */
  stored: boolean;
  last: LastCounted | undefined;
  readonly counts: ReportCounts = { verified: 0, forged: 0, replayed: 0, plain: 0 };
  /** Monotonic instant of the latest refusal, and what it was. */
  refusedAt: number | undefined;
  refusal: Refusal | undefined;
  /** The latest refusal was a valid check on a counter below the last counted one. */
  wentBack = false;

  constructor(key: Buffer, stored: boolean, savedCounter: number | undefined, now: number) {
    this.key = key;
    this.stored = stored;
    // A saved counter is a report counted before this run: whatever its age, never counted again.
    this.last = savedCounter === undefined ? undefined : { counter: savedCounter, at: now - IMITATED_FOR_MS };
  }

  imitated(now: number): boolean {
    return this.refusedAt !== undefined && now - this.refusedAt < IMITATED_FOR_MS;
  }
}

/** The problem `status`, the health and the fleet show for an imitated button. */
export function imitatedWords(deviceId: string, state: KeyedState): string {
  return state.wentBack
    ? `button ${deviceId} imitated: counter went back (battery changed?): pair it again with its key`
    : `button ${deviceId} imitated: reports of ${deviceId} failed authentication: something may be imitating it`;
}
