import { PanicPairError } from '../errors.js';

// Waiting with a deadline and a way out: the pieces `pair` and `scan` need to give up in time
// (exit 8) or when the installer presses Ctrl-C, without leaving listeners or timers behind.

export function timedOut(deviceId: string, message: string): PanicPairError {
  return new PanicPairError('timeout', message.includes(deviceId) ? message : `${message} (${deviceId})`);
}

export function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

/** An AbortSignal that fires on the caller's abort or when the time is up (as a 'timeout' error). */
export function timeoutSignal(timeoutMs: number, parent: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new PanicPairError('timeout', `not linked within ${seconds(timeoutMs)}`)),
    timeoutMs,
  );
  // A caller that aborts with a reason of its own (the hub cannot hear the button) keeps it.
  const onParentAbort = (): void =>
    controller.abort(parent.reason instanceof PanicPairError ? parent.reason : new PanicPairError('failure', 'the request was cancelled'));
  if (parent.aborted) onParentAbort();
  else parent.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}

export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, onTimeout: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(reasonOf(signal, onTimeout));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(reasonOf(signal, onTimeout));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export function reasonOf(signal: AbortSignal, onTimeout: () => Error): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof PanicPairError && reason.kind === 'timeout') return onTimeout();
  return reason instanceof Error ? reason : new PanicPairError('failure', 'the request was cancelled');
}

export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}
