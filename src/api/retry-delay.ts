// How long to wait before the next attempt: a pure function, so the policy is tested without clocks.

export interface RetryPolicy {
  /** Retries after the first attempt. */
  limit: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is cut down to it, so a misbehaving API cannot park the daemon. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  limit: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

export interface RetryDelayInput {
  /** 1 for the first retry, 2 for the second, ... */
  retry: number;
  /** The status of the failed attempt, when the API answered. */
  status?: number;
  /** The Retry-After header of that answer, as sent. */
  retryAfter?: string;
  /** Milliseconds since the epoch, for a Retry-After given as an HTTP date. */
  now: number;
  /** A number in [0, 1): the jitter source. */
  random: () => number;
  policy: RetryPolicy;
}

/** Milliseconds a Retry-After header asks for (delay-seconds or HTTP date), or undefined if unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Only a real date: Date.parse also accepts bare numbers such as "-5" or "2024".
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Capped exponential backoff with full jitter (a uniform pick in [0, min(max, base * 2^(retry-1))),
 * which spreads hubs that failed together), unless a 429 or 503 says when to come back: then that,
 * capped at maxRetryAfterMs.
 */
export function retryDelay(input: RetryDelayInput): number {
  const { policy } = input;
  if (input.status === 429 || input.status === 503) {
    const asked = parseRetryAfter(input.retryAfter, input.now);
    if (asked !== undefined) return Math.min(asked, policy.maxRetryAfterMs);
  }
  const exponent = Math.max(0, input.retry - 1);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  // Clamped so a faulty jitter source can never push the delay out of [0, ceiling].
  const jitter = Math.min(Math.max(input.random(), 0), 1);
  return Math.floor(jitter * ceiling);
}
