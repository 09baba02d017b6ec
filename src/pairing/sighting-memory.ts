import type { Sighting } from '../discovery/sighting.js';

interface Entry {
  deviceId: string;
  source: string;
  rssi: number | undefined;
  deviceTypeId: number | undefined;
  lastSeen: number;
}

export interface RememberedSighting {
  deviceId: string;
  source: string;
  rssi?: number;
  deviceTypeId?: number;
  lastSeen: number;
}

// Buttons heard recently, for `scan` and for `pair <id>` right after a press. Bounded in count and
// age so that a flood of distinct ids cannot grow memory; never written to disk (SD cards wear).
// A Map keeps insertion order, so re-inserting on each report makes the first key the oldest.
//
// Once full, the memory takes a new id in place of its oldest entry freely when that entry is
// past the age bound, and otherwise only at a bounded rate. A flood of made-up ids (a broken
// gateway, a hostile publisher) therefore cannot flush the buttons heard before it, which
// `scan` and `pair <id>` still find, and costs a lookup a message instead of an eviction.
export class SightingMemory {
  readonly #entries = new Map<string, Entry>();
  /**
   * Walks the keys oldest first, kept from one eviction to the next. A fresh `keys()` at each
   * eviction would step again over every slot the deletions at the front left behind (about
   * the capacity), which made a flood of distinct ids cost a microsecond a sighting.
   */
  #walk: MapIterator<string> = this.#entries.keys();
  /** The oldest key as the walk last found it; undefined once it is deleted (refreshed, evicted). */
  #oldest: string | undefined;
  readonly #capacity: number;
  readonly #maxAgeMs: number;
  /** New ids a second that may push out an entry still within the age bound. */
  readonly #admitPerSecond: number;
  /** Thousandths of a token in the bucket. */
  #admissions: number;
  #admissionsAt: number | undefined;
  #refused = 0;

  constructor(options: { capacity: number; maxAgeMs: number; admitPerSecond?: number }) {
    this.#capacity = options.capacity;
    this.#maxAgeMs = options.maxAgeMs;
    this.#admitPerSecond = options.admitPerSecond ?? 16;
    this.#admissions = this.#admitPerSecond * 1000;
  }

  remember(sighting: Sighting): void {
    const entries = this.#entries;
    const previous = entries.get(sighting.deviceId);
    let rssi = sighting.rssi;
    if (previous !== undefined) {
      this.#delete(sighting.deviceId);
      // Exponential smoothing: one report behind a passing body should not reorder `scan`.
      if (rssi !== undefined && previous.rssi !== undefined && previous.source === sighting.source) {
        rssi = previous.rssi * 0.7 + rssi * 0.3;
      }
    } else if (entries.size >= this.#capacity && !this.#makeRoom(sighting.at)) {
      this.#refused += 1;
      return;
    }
    entries.set(sighting.deviceId, {
      deviceId: sighting.deviceId,
      source: sighting.source,
      rssi,
      deviceTypeId: sighting.deviceTypeId,
      lastSeen: sighting.at,
    });
  }

  /** The last sighting of this device, when it is no older than `withinMs`. */
  recent(deviceId: string, now: number, withinMs: number): RememberedSighting | undefined {
    const entry = this.#entries.get(deviceId);
    if (entry === undefined || now - entry.lastSeen > Math.min(withinMs, this.#maxAgeMs)) return undefined;
    return toRemembered(entry);
  }

  /** Everything heard since `since`, oldest entries past the age bound dropped on the way. */
  since(since: number, now: number): RememberedSighting[] {
    this.#expire(now);
    const result: RememberedSighting[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.lastSeen >= since) result.push(toRemembered(entry));
    }
    return result;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** New ids turned away because the memory was full of sightings within the age bound. */
  get refused(): number {
    return this.#refused;
  }

  /** Evicts the oldest entry when it is past the age bound or the admission rate allows. */
  #makeRoom(now: number): boolean {
    const oldest = this.#findOldest();
    if (oldest === undefined) return false;
    const stale = now - this.#entries.get(oldest)!.lastSeen > this.#maxAgeMs;
    if (!stale && !this.#admit(now)) return false;
    this.#delete(oldest);
    return true;
  }

  /**
   * A token bucket holding up to `admitPerSecond` tokens, refilled by the sightings' own clock.
   * Counted in thousandths of a token, so whole milliseconds add up without rounding.
   */
  #admit(now: number): boolean {
    const elapsed = this.#admissionsAt === undefined ? 0 : Math.max(0, now - this.#admissionsAt);
    this.#admissionsAt = now;
    this.#admissions = Math.min(this.#admitPerSecond * 1000, this.#admissions + elapsed * this.#admitPerSecond);
    if (this.#admissions < 1000) return false;
    this.#admissions -= 1000;
    return true;
  }

  #findOldest(): string | undefined {
    if (this.#oldest !== undefined) return this.#oldest;
    let next = this.#walk.next();
    if (next.done === true) {
      this.#walk = this.#entries.keys();
      next = this.#walk.next();
    }
    this.#oldest = next.done === true ? undefined : next.value;
    return this.#oldest;
  }

  #delete(deviceId: string): void {
    this.#entries.delete(deviceId);
    if (deviceId === this.#oldest) this.#oldest = undefined;
  }

  #expire(now: number): void {
    for (const [deviceId, entry] of this.#entries) {
      if (now - entry.lastSeen <= this.#maxAgeMs) break;
      this.#delete(deviceId);
    }
  }
}

function toRemembered(entry: Entry): RememberedSighting {
  const remembered: RememberedSighting = { deviceId: entry.deviceId, source: entry.source, lastSeen: entry.lastSeen };
  if (entry.rssi !== undefined) remembered.rssi = Math.round(entry.rssi);
  if (entry.deviceTypeId !== undefined) remembered.deviceTypeId = entry.deviceTypeId;
  return remembered;
}
