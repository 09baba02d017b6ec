/**
 * A counting semaphore: at most `max` requests to the API in flight at once, whatever route they
 * take, so a burst of buttons cannot flood the API or the hub's uplink. Waiters are served in order.
 */
export class RequestSlots {
  readonly #max: number;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(max: number) {
    this.#max = max;
  }

  get active(): number {
    return this.#active;
  }

  /** Resolves with a release function once a slot is free; rejects with the signal's reason if aborted first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.#max) {
      this.#active += 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.#releaser());
      };
      const onAbort = (): void => {
        const index = this.#waiting.indexOf(grant);
        if (index !== -1) this.#waiting.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter, so `active` never dips and overshoots.
      if (next) next();
      else this.#active -= 1;
    };
  }
}
