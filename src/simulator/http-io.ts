import type { IncomingMessage } from 'node:http';

/**
 * Resolves once `deadline` (a `performance.now()` time) has passed, never before, or at once when
 * the signal is aborted. Timers count whole milliseconds from the event loop's cached clock, so
 * one can fire up to a millisecond early or late: the timer aims at the whole milliseconds left,
 * and what remains of the last one is waited out a loop turn at a time.
 */
export async function pauseUntil(deadline: number, signal: AbortSignal): Promise<void> {
  const left = deadline - performance.now();
  if (left >= 1) await pause(Math.floor(left), signal);
  while (performance.now() < deadline && !signal.aborted) await new Promise((resolve) => setImmediate(resolve));
}

/** Resolves after `ms`, or at once when the signal is aborted (the simulator is closing). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The spec: requests with a body use `Content-Type: application/json` (parameters such as charset allowed). */
export function isJsonRequest(request: IncomingMessage): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/json\s*(;|$)/i.test(type.trim());
}
