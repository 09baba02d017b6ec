import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';

export type Listener<T> = (value: T) => void;

// The engine's outputs (MQTT state, Home Assistant, the installer's page, control replies) listen
// here. A listener that throws (an output failing) must never stall a link job.
export class Listeners<T> {
  readonly #listeners = new Set<Listener<T>>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  get size(): number {
    return this.#listeners.size;
  }

  /** `first`: told before the listeners added so far (and before later ones without it). */
  add(listener: Listener<T>, first = false): void {
    if (!first) {
      this.#listeners.add(listener);
      return;
    }
    const rest = [...this.#listeners].filter((other) => other !== listener);
    this.#listeners.clear();
    this.#listeners.add(listener);
    for (const other of rest) this.#listeners.add(other);
  }

  remove(listener: Listener<T>): boolean {
    return this.#listeners.delete(listener);
  }

  notify(value: T): void {
    for (const listener of this.#listeners) {
      try {
        listener(value);
      } catch (error) {
        this.#logger.error({ err: messageOf(error) }, 'a state listener failed');
      }
    }
  }
}
