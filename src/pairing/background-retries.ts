import { retryDelay, type RetryPolicy } from '../api/retry-delay.js';
import type { ErrorKind } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { LinkTarget } from './link-job.js';
import type { LinkOutcome } from './types.js';

/** 15 s doubling to 5 min, jittered. */
const DEFAULT_POLICY: RetryPolicy = { limit: Number.POSITIVE_INFINITY, baseDelayMs: 15_000, maxDelayMs: 300_000, maxRetryAfterMs: 300_000 };
const RETRIED_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['transient', 'store']);
const MAX_PENDING = 256;

interface Pending {
  attempt: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A link asked for but failed for a passing reason (the API unreachable, the disk full) is not
 * dropped: it is tried again with capped backoff until it succeeds or fails for good, so pending
 * pairings complete once the fault clears. Any other outcome ends the retries. At most MAX_PENDING
 * wait at once, so a flood of distinct ids cannot grow this without bound.
 */
export class BackgroundRetries {
  readonly #pending = new Map<string, Pending>();
  readonly #policy: RetryPolicy;
  /** The wall clock, for a Retry-After given as a date; the waits themselves are timers. */
  readonly #clock: () => number;
  readonly #logger: Logger;
  /** Starts the job; 'later' when one is under way (its outcome decides), 'done' when linked meanwhile. */
  readonly #retry: (target: LinkTarget) => 'started' | 'later' | 'done';

  constructor(options: {
    policy: RetryPolicy | undefined;
    clock: () => number;
    logger: Logger;
    retry: (target: LinkTarget) => 'started' | 'later' | 'done';
  }) {
    this.#policy = options.policy ?? DEFAULT_POLICY;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#retry = options.retry;
  }

  get size(): number {
    return this.#pending.size;
  }

  /** What a job's outcome means for its retries: schedule the next, or end them. */
  after(target: LinkTarget, outcome: LinkOutcome): void {
    const { deviceId } = target;
    if (outcome.ok || !RETRIED_KINDS.has(outcome.kind)) {
      this.cancel(deviceId);
      return;
    }
    const previous = this.#pending.get(deviceId);
    if (previous === undefined && this.#pending.size >= MAX_PENDING) {
      this.#logger.warn({ deviceId, pending: this.#pending.size }, 'too many failed links waiting; this one is retried only when asked again');
      return;
    }
    // A link tried again before its timer fired (`pair` through an outage tries every few
    // seconds) replaces that timer, at the same step of the backoff: a timer left behind would
    // start a job of its own, out of `cancel`'s (a `forget`'s) reach, and the installer's tries
    // must not push the hub's next one minutes away. Only a retry of the hub's own steps it up.
    const foreground = previous?.timer !== undefined;
    if (previous?.timer) clearTimeout(previous.timer);
    const attempt = (previous?.attempt ?? 0) + (foreground ? 0 : 1);
    const delay = retryDelay({ retry: attempt, now: this.#clock(), random: Math.random, policy: this.#policy });
    const entry: Pending = { attempt, timer: undefined };
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      const result = this.#retry(target);
      if (result === 'done') this.cancel(deviceId);
      else if (result === 'started') this.#logger.info({ deviceId, attempt }, 'trying a failed link again');
    }, delay);
    entry.timer.unref();
    this.#pending.set(deviceId, entry);
  }

  cancel(deviceId: string): void {
    const entry = this.#pending.get(deviceId);
    if (entry?.timer) clearTimeout(entry.timer);
    this.#pending.delete(deviceId);
  }

  cancelAll(): void {
    for (const deviceId of [...this.#pending.keys()]) this.cancel(deviceId);
  }
}
