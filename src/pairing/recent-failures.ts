// When each device's last link attempt failed, so that its sightings are held back for a while
// (decisions.ts: a flood of sightings must not hammer a failing API). Bounded in count, not only
// by the cool-down: a window open while anyone announces made-up ids by the ten thousand, or
// `pair` in a loop with new ids against a failing API, left an entry per id for the daemon's life.
// A failure matters only for the longest cool-down (30 s); past the cap the oldest
// failure goes first, the one whose cool-down ends first.

import { setNewest } from '../newest-kept.js';

/** Failures within the cool-down that a real shop produces are a handful; 1,024 is far above. */
export const RECENT_FAILURES_KEPT = 1024;

export class RecentFailures {
  /** Oldest first: a Map keeps insertion order, and a device's new failure is inserted anew. */
  readonly #at = new Map<string, number>();
  readonly #capacity: number;

  constructor(capacity = RECENT_FAILURES_KEPT) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#at.size;
  }

  /** Monotonic ms of the device's last failure, if it is still kept. */
  get(deviceId: string): number | undefined {
    return this.#at.get(deviceId);
  }

  failed(deviceId: string, at: number): void {
    setNewest(this.#at, deviceId, at, this.#capacity);
  }

  /** A link, or a `forget`: its failure no longer holds anything back. */
  clear(deviceId: string): void {
    this.#at.delete(deviceId);
  }
}
