import type { Sighting } from '../sighting.js';
import { wallTimeOf } from '../clock.js';
import type { DeviceRecord } from '../store/record.js';
import { abortableDelay } from './deadline.js';
import type { SightingMemory } from './sighting-memory.js';
import type { HeardEntry, ScanEntry } from './types.js';

// The buttons heard lately, as `scan`, the installer's page and `pair <id>` ask for them. The
// engine feeds the memory itself on the hot path; this only reads it.
export class HeardButtons {
  readonly #memory: SightingMemory;
  /** Monotonic: ages and the scan's start. */
  readonly #clock: () => number;
  /** Only stamps `lastSeen`. */
  readonly #wallClock: () => number;
  readonly #record: (deviceId: string) => DeviceRecord | undefined;
  /** A sighting this recent lets `pair <id>` start at once. */
  readonly #recentMs: number;

  constructor(options: {
    memory: SightingMemory;
    clock: () => number;
    wallClock: () => number;
    record(deviceId: string): DeviceRecord | undefined;
    recentMs: number;
  }) {
    this.#memory = options.memory;
    this.#clock = options.clock;
    this.#wallClock = options.wallClock;
    this.#record = options.record;
    this.#recentMs = options.recentMs;
  }

  async scan(seconds: number, signal: AbortSignal): Promise<ScanEntry[]> {
    const since = this.#clock() - seconds * 1000;
    await abortableDelay(seconds * 1000, signal);
    return this.#since(since).map(({ ageMs: _age, ...entry }) => entry);
  }

  /** Buttons heard within the last `withinMs`, at once, with their ages (the page's live list). */
  heard(withinMs: number): HeardEntry[] {
    return this.#since(this.#clock() - withinMs);
  }

  /** The button's last sighting when it is recent enough for `pair <id>` to start at once. */
  recent(deviceId: string): Sighting | undefined {
    const seen = this.#memory.recent(deviceId, this.#clock(), this.#recentMs);
    if (seen === undefined) return undefined;
    return { deviceId, source: seen.source, rssi: seen.rssi, deviceTypeId: seen.deviceTypeId, at: seen.lastSeen };
  }

  #since(since: number): HeardEntry[] {
    const now = this.#clock();
    // Both clocks read once a snapshot, not once a button (wallTimeOf's rule, with `now` held).
    const wallNow = this.#wallClock();
    const clocks = { monotonic: () => now, wall: () => wallNow };
    return this.#memory.since(since, now).map((seen) => {
      const lastSeen = new Date(wallTimeOf(seen.lastSeen, clocks)).toISOString();
      const entry: HeardEntry = { deviceId: seen.deviceId, source: seen.source, lastSeen, ageMs: Math.max(0, now - seen.lastSeen) };
      if (seen.rssi !== undefined) entry.rssi = seen.rssi;
      if (seen.deviceTypeId !== undefined) entry.deviceTypeId = seen.deviceTypeId;
      const state = this.#record(seen.deviceId)?.state;
      if (state !== undefined) entry.state = state;
      return entry;
    });
  }
}
