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
export class SightingMemory {
  readonly #entries = new Map<string, Entry>();
  /**
   * Walks the keys oldest first, kept from one eviction to the next. A fresh `keys()` at each
   * eviction would step again over every slot the deletions at the front left behind (about
   * the capacity), which made a flood of distinct ids cost a microsecond a sighting.
   */
  #oldest: MapIterator<string> = this.#entries.keys();
  readonly #capacity: number;
  readonly #maxAgeMs: number;

  constructor(options: { capacity: number; maxAgeMs: number }) {
    this.#capacity = options.capacity;
    this.#maxAgeMs = options.maxAgeMs;
  }

  remember(sighting: Sighting): void {
    const entries = this.#entries;
    const previous = entries.get(sighting.deviceId);
    let rssi = sighting.rssi;
    if (previous !== undefined) {
      entries.delete(sighting.deviceId);
      // Exponential smoothing: one report behind a passing body should not reorder `scan`.
      if (rssi !== undefined && previous.rssi !== undefined && previous.source === sighting.source) {
        rssi = previous.rssi * 0.7 + rssi * 0.3;
      }
    } else if (entries.size >= this.#capacity) {
      this.#evictOldest();
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

  #evictOldest(): void {
    let next = this.#oldest.next();
    if (next.done === true) {
      this.#oldest = this.#entries.keys();
      next = this.#oldest.next();
    }
    if (next.done !== true) this.#entries.delete(next.value);
  }

  #expire(now: number): void {
    for (const [deviceId, entry] of this.#entries) {
      if (now - entry.lastSeen <= this.#maxAgeMs) break;
      this.#entries.delete(deviceId);
    }
  }
}

function toRemembered(entry: Entry): RememberedSighting {
  const remembered: RememberedSighting = { deviceId: entry.deviceId, source: entry.source, lastSeen: entry.lastSeen };
  if (entry.rssi !== undefined) remembered.rssi = Math.round(entry.rssi);
  if (entry.deviceTypeId !== undefined) remembered.deviceTypeId = entry.deviceTypeId;
  return remembered;
}
