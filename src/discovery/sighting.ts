// What every source turns its raw input into. The engine knows nothing of where a sighting came
// from beyond the `source` word it reports back to the installer.
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
  /** Battery percent, 0 to 100, when the report carries one (CONTRACT.md section 17); a value out
   * of range never gets here: the source drops it and counts it. */
  battery?: number;
  /** The report flags the battery low (BTHome v2 object 0x15). */
  batteryLow?: boolean;
  /** The profile that recognised it, when one did: its supervisionSeconds and triggerOnly apply. */
  profile?: string;
  /** A retained MQTT message: the broker's copy of an old report, not a sign of life now. */
  retained?: true;
}

/** `deviceId` is 1 to 64 characters of `A-Z a-z 0-9 . _ : -` (CONTRACT.md section 5). */
export const DEVICE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export function isValidDeviceId(value: unknown): value is string {
  return typeof value === 'string' && DEVICE_ID_PATTERN.test(value);
}
