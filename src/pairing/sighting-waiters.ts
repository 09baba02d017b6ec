import type { Sighting } from '../sighting.js';
import { reasonOf, timedOut } from './deadline.js';

type Waiter = (sighting: Sighting) => void;

// `pair <id>` for a button not heard yet: it waits here until a sighting of that button arrives,
// its time runs out or the installer gives up. Nothing is left behind either way.
export class SightingWaiters {
  readonly #waiters = new Map<string, Set<Waiter>>();

  /** Hands the sighting to those waiting for its button; false when nobody was. */
  deliver(sighting: Sighting): boolean {
    // Most sightings find nobody waiting; a flood of them should not pay a lookup each.
    const waiters = this.#waiters.size === 0 ? undefined : this.#waiters.get(sighting.deviceId);
    if (waiters === undefined) return false;
    this.#waiters.delete(sighting.deviceId);
    for (const waiter of waiters) waiter(sighting);
    return true;
  }

  wait(deviceId: string, signal: AbortSignal): Promise<Sighting> {
    return new Promise<Sighting>((resolve, reject) => {
      const waiters = this.#waiters.get(deviceId) ?? new Set<Waiter>();
      this.#waiters.set(deviceId, waiters);
      const onAbort = (): void => {
        waiters.delete(resolveAndClean);
        if (waiters.size === 0 && this.#waiters.get(deviceId) === waiters) this.#waiters.delete(deviceId);
        // The time-out's own reason says only "not linked"; say which step ran out of time.
        reject(
          reasonOf(signal, () =>
            timedOut(deviceId, `button ${deviceId} was not seen in time: press it near the hub and pair again (panic-pair scan lists the buttons the hub hears)`),
          ),
        );
      };
      const resolveAndClean = (sighting: Sighting): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(sighting);
      };
      waiters.add(resolveAndClean);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
