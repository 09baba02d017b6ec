// What every source turns its raw input into. The engine knows nothing of where a sighting came
// from beyond the `source` word it reports back to the installer.
// It lives on the ground floor of src/, not in discovery/: supervision, a floor below the sources,
// reads it too.
export interface Sighting {
  deviceId: string;
  /** `ble` (the hub's radio or a replayed capture), `mqtt` (announcements), or an adapter's name. */
  source: string;
  /** dBm, when the source knows it. */
  rssi?: number;
  /** From the announcement or the BLE profile; otherwise the configured default applies. */
  deviceTypeId?: number;
  /** When it was heard, on the monotonic clock (src/clock.ts): it measures ages, never a date. */
  at: number;
  /** Battery percent, 0 to 100, when the report carries one; a value out
   * of range never gets here: the source drops it and counts it. */
  battery?: number;
  /** The report flags the battery low (BTHome v2 object 0x15). */
  batteryLow?: boolean;
  /** The profile that recognised it, when one did: its supervisionSeconds and triggerOnly apply. */
  profile?: string;
  /** A retained MQTT message: the broker's copy of an old report, not a sign of life now. */
  retained?: true;
  /** Encrypted BTHome service data (after the UUID) and the address it came from (noble's, or a
   * gateway's `id`): only the button's key reads it (src/authentication/). */
  sealed?: { data: Uint8Array; address: string };
  /** It carried BTHome service data without encryption. */
  plainBthome?: true;
  /** BTHome device information bit 2: it sends when something happens, not at a steady pace. */
  triggerBased?: true;
}

/**
 * A reported battery as the whole percent a sighting carries, or undefined
 * when it is no number or out of 0 to 100 (the caller drops and counts it). Gateways and Zigbee
 * devices may send a fraction (`"batt": 87.5`): it is rounded, since the store keeps whole percents.
 */
export function batteryPercent(value: unknown): number | undefined {
  if (typeof value !== 'number' || !(value >= 0 && value <= 100)) return undefined;
  return Math.round(value);
}
