// The counters `status` reports. One mutable object shared by the sources, the engine and the API
// client's hooks; incrementing a number costs nothing on the hot path.
export interface Counters {
  /** Messages and advertisements received from every source. */
  announcements: number;
  /** Invalid ones, counted and dropped. */
  dropped: number;
  /** Successful `POST /devices`. */
  links: number;
  /** API requests that ended in an error status, a time-out or a dropped connection. */
  apiErrors: number;
  /**
   * Battery values out of range (BTHome, a gateway's `batt`, a Zigbee2MQTT report) left off their
   * sightings; the sightings themselves were kept.
   */
  batteryDropped: number;
  /** Reports of keyed buttons refused: a check that fails, */
  forged: number;
  /** a counter not greater than the last counted one, */
  replayed: number;
  /** no encryption at all. */
  plain: number;
}

export function createCounters(): Counters {
  return { announcements: 0, dropped: 0, links: 0, apiErrors: 0, batteryDropped: 0, forged: 0, replayed: 0, plain: 0 };
}
