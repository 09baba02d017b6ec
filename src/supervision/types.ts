import type { DeviceRecord } from '../store/record.js';

// The words and shapes of a linked button's supervision, shared by the
// engine that decides them and every output that shows them (CLI, status, MQTT, Home Assistant,
// the installer's page, the fleet).

/**
 * - `online`: heard within its deadline;
 * - `missing`: not heard within its deadline while a source that can hear it was working;
 * - `unknown`: no working source could hear it, or not heard yet since it was linked or since the
 *   daemon started; never a problem of the button;
 * - `unsupervised`: its profile says it sends only when pressed (or supervision is off).
 */
export type Supervision = 'online' | 'missing' | 'unknown' | 'unsupervised';

/** What supervision adds to a linked device in `devices --json` (null where not known). */
export interface ButtonLiveness {
  /** ISO-8601 of the latest report from any source, or null when never heard. */
  lastHeard: string | null;
  /** Percent 0-100 from the latest report that carried one, or null. */
  battery: number | null;
  /** At or below PANIC_PAIR_BATTERY_LOW_PERCENT, or flagged low by the button (BTHome 0x15). */
  batteryLow: boolean;
  supervision: Supervision;
  /** Seconds of silence after which the button is `missing`; null when unsupervised. */
  deadlineSeconds: number | null;
  /** A keyed button with a refused report in the last hour; absent for a
   * button with no key. */
  imitated?: boolean;
}

/** How a keyed button's reports have fared. */
export interface ReportCounts {
  verified: number;
  forged: number;
  replayed: number;
  plain: number;
}

/** What authentication adds to a linked device in `devices --json`. */
export interface ButtonAuthentication {
  /** Linked with its key: only its verified reports count. */
  authenticated: boolean;
  /** For a keyed button only. */
  reports?: ReportCounts;
}

/** A row of `devices`: a linked device carries its liveness, other states none of it. */
export type DeviceRow = DeviceRecord & Partial<ButtonLiveness> & Partial<ButtonAuthentication>;

/** `status --json` `buttons` and `<prefix>/health` `buttons`: counts over the linked buttons. */
export interface ButtonCounts {
  linked: number;
  online: number;
  missing: number;
  unknown: number;
  unsupervised: number;
  batteryLow: number;
}

/** `<prefix>/devices/<deviceId>/availability`, retained (Zigbee2MQTT's form); nothing for `unknown`. */
export interface AvailabilityPayload {
  state: 'online' | 'offline';
}

/**
 * `<prefix>/devices/<deviceId>/supervision`, retained: what Home Assistant's battery and
 * "Last heard" sensors read. Published when supervision or battery changes, and when the last-heard
 * time is saved (at most 4 times an hour at rest), never at every report.
 */
export interface SupervisionPayload {
  supervision: Supervision;
  lastHeard: string | null;
  battery: number | null;
  batteryLow: boolean;
  /** A keyed button only: what Home Assistant's "Imitated" tamper sensor reads. */
  imitated?: boolean;
}

/**
 * A source's liveness as the MQTT side learns it: a BLE gateway's last will
 * (`<base>/<gateway>/LWT` `offline`/`online`), Zigbee2MQTT's `<base>/bridge/state`. `source` is the
 * word its sightings carry (`ble-gateway:<name>`, `zigbee2mqtt`).
 */
export interface SourceLiveness {
  source: string;
  up: boolean;
}
