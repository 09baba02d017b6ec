import type { Sighting } from '../sighting.js';

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
// Up to half its capacity the memory takes any new id. Beyond that a new id gets in in place of
// the oldest entry when that entry is past the age bound, and otherwise at a bounded rate (the
// oldest entry going once the memory is full). A flood of made-up ids (a broken gateway, a hostile
// publisher) thus fills half the memory at once and the rest slowly: at the default rate, a
// memory that held fewer than 1,024 ids keeps the buttons heard before a flood for a minute or
// more, for `scan` and `pair <id>`, and a flood message costs a lookup instead of an eviction.
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
  /** New ids a second that may enter past half the capacity (pushing out entries within the age bound). */
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
    } else if (entries.size >= this.#capacity / 2 && !this.#makeRoom(sighting.at)) {
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

  /**
   * Whether a new id may enter a memory at least half full: in place of an oldest entry past the
   * age bound, or when the admission rate allows (the oldest entry going if the memory is full).
   */
  #makeRoom(now: number): boolean {
    const oldest = this.#findOldest();
    const stale = oldest !== undefined && now - this.#entries.get(oldest)!.lastSeen > this.#maxAgeMs;
    if (!stale && !this.#admit(now)) return false;
    if (oldest !== undefined && (stale || this.#entries.size >= this.#capacity)) this.#delete(oldest);
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
