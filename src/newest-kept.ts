// A Map kept as a bounded memory of the newest entries: its insertion order is oldest first, so an
// entry set again moves to the end, and past the capacity the oldest goes (so no per-id map
// grows with the ids an attacker makes up).

/** Sets `key` as the newest entry of `map`, dropping the oldest while the map would exceed `capacity`. */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, capacity: number): void {
  // Deleted first, so the Map's order stays oldest first.
  if (!map.delete(key)) {
    for (const oldest of map.keys()) {
      if (map.size < capacity) break;
      map.delete(oldest);
    }
  }
  map.set(key, value);
}
