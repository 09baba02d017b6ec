import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { BackgroundRetries } from '../../src/pairing/background-retries.js';
import type { LinkTarget } from '../../src/pairing/link-job.js';
import type { LinkOutcome } from '../../src/pairing/types.js';

const TARGET: LinkTarget = { deviceId: 'BTN-1', source: 'mqtt', deviceTypeId: undefined, customerId: 42 };
const UNREACHABLE: LinkOutcome = { ok: false, deviceId: 'BTN-1', kind: 'transient', message: 'connection refused' };
const POLICY = { limit: Number.POSITIVE_INFINITY, baseDelayMs: 1_000, maxDelayMs: 60_000, maxRetryAfterMs: 60_000 };

describe('background retries', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    // The top of the full jitter: each wait is 99% of its step's ceiling.
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  const retriesCounting = () => {
    const started: string[] = [];
    const retries = new BackgroundRetries({
      policy: POLICY,
      clock: () => Date.now(),
      logger: silentLogger(),
      retry: (target) => {
        started.push(target.deviceId);
        return 'started';
      },
    });
    return { retries, started };
  };

  it('a failure before the last retry fired replaces its timer at the same step: one retry, soon', async () => {
    const { retries, started } = retriesCounting();
    // `pair` through an outage: three failures of the same link before the hub's retry is due.
    retries.after(TARGET, UNREACHABLE);
    retries.after(TARGET, UNREACHABLE);
    retries.after(TARGET, UNREACHABLE);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual(['BTN-1']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(started).toEqual(['BTN-1']);
  });

  it("a failure of the hub's own retry steps the backoff up", async () => {
    const { retries, started } = retriesCounting();
    retries.after(TARGET, UNREACHABLE);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual(['BTN-1']);
    retries.after(TARGET, UNREACHABLE); // that retry failed: the next waits up to 2 s
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual(['BTN-1']);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual(['BTN-1', 'BTN-1']);
  });

  it('forget (cancel) after several failures leaves no retry to start a link for the forgotten button', async () => {
    const { retries, started } = retriesCounting();
    retries.after(TARGET, UNREACHABLE);
    retries.after(TARGET, UNREACHABLE);
    retries.cancel('BTN-1');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(started).toEqual([]);
    expect(retries.size).toBe(0);
  });
});
