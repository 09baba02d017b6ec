import type { Logger } from './logger.js';
import { monotonicNow } from '../clock.js';

export interface RateLimitedWarningOptions {
  logger: Logger;
  /** The summary line for warnings that were held back, e.g. `${n} more invalid announcements dropped`. */
  summary: (suppressed: number) => string;
  /** Lines logged in full per interval; default 5. */
  limit?: number;
  /** Default one minute. */
  intervalMs?: number;
  /** Milliseconds since the epoch; injected so tests need no sleeps. */
  now?: () => number;
}

// A source that anyone on the network can write to must not be able to flood the journal: the
// first few warnings of each interval are logged in full, the rest are counted and reported in one
// summary line when the interval is over (on the next warning, on flush(), or by a timer that does
// not keep the process alive).
export class RateLimitedWarning {
  readonly #logger: Logger;
  readonly #summary: (suppressed: number) => string;
  readonly #limit: number;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #windowStart = Number.NEGATIVE_INFINITY;
  #logged = 0;
  #suppressed = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: RateLimitedWarningOptions) {
    this.#logger = options.logger;
    this.#summary = options.summary;
    this.#limit = options.limit ?? 5;
    this.#intervalMs = options.intervalMs ?? 60_000;
    this.#now = options.now ?? monotonicNow;
  }

  /** Logs at warn level, unless this interval's allowance is spent. */
  warn(fields: Record<string, unknown>, message: string): void {
    const now = this.#now();
    if (now - this.#windowStart >= this.#intervalMs) {
      this.flush();
      this.#windowStart = now;
    }
    if (this.#logged < this.#limit) {
      this.#logged += 1;
      this.#logger.warn(fields, message);
      return;
    }
    this.#suppressed += 1;
    if (this.#suppressed === 1) this.#scheduleFlush(this.#windowStart + this.#intervalMs - now);
  }

  /** Warnings held back in the current interval. */
  get suppressed(): number {
    return this.#suppressed;
  }

  /** Logs the summary of held-back warnings, if any, and starts a fresh interval. */
  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#suppressed > 0) {
      this.#logger.warn({ suppressed: this.#suppressed }, this.#summary(this.#suppressed));
    }
    this.#suppressed = 0;
    this.#logged = 0;
    this.#windowStart = Number.NEGATIVE_INFINITY;
  }

  #scheduleFlush(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, Math.max(0, delayMs));
    this.#timer.unref();
  }
}
