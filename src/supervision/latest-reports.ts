// The latest report of each button not linked yet, a few of them: the report that links a button
// arrives before its link does (the engine posts it, then stores it), and it is the button's first
// heard report, with its battery. Bounded, so a flood of made-up ids
// costs a map entry each and pushes out only the oldest.
import type { Sighting } from '../sighting.js';
import { setNewest } from '../newest-kept.js';

/** Buttons being linked at once, with room to spare: a pairing window in a busy shop. */
export const LATEST_REPORTS_KEPT = 256;

export class LatestReports {
  readonly #reports = new Map<string, Sighting>();
  readonly #capacity: number;

  constructor(capacity = LATEST_REPORTS_KEPT) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#reports.size;
  }

  remember(sighting: Sighting): void {
    setNewest(this.#reports, sighting.deviceId, sighting, this.#capacity);
  }

  /** The latest report of the button, forgotten here once taken. */
  take(deviceId: string): Sighting | undefined {
    const sighting = this.#reports.get(deviceId);
    this.#reports.delete(deviceId);
    return sighting;
  }
}
