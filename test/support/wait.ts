export interface WaitOptions {
  /** Default 5 s. */
  timeoutMs?: number;
  /** Named in the error on time-out, e.g. 'the retained online status'. */
  what?: string;
  /** Default 10 ms. */
  intervalMs?: number;
}

/** Polls `probe` until it returns something truthy, and returns that; throws naming `what` on time-out. */
export async function waitFor<T>(probe: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const intervalMs = options.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (error) {
      // A probe may throw while the condition is not yet reachable (e.g. connection refused).
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? 'a condition'}${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
