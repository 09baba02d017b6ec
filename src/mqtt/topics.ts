import { PanicPairError } from '../errors.js';
import { isValidDeviceId } from '../device-id.js';
import type { DeviceState } from '../store/record.js';
import type { StatusReport } from '../status/status-report.js';
import type { AvailabilityPayload, ButtonCounts, SupervisionPayload } from '../supervision/types.js';
import type { UpdateOutcome } from '../update/words.js';

// Every topic the daemon uses, with its direction and payload, in one
// place, so a topic name or a payload shape can only change here.

/** `<prefix>/announce`, in: a button asks to be seen. Checked by src/discovery/announce.ts. */
export interface AnnouncePayload {
  deviceId: string;
  deviceTypeId?: number;
  rssi?: number;
}

/** `<prefix>/status`, out, retained; `offline` is also the broker's last will. */
export type StatusPayload = 'online' | 'offline';

/** `<prefix>/devices/<deviceId>`, out, retained, on each state change. */
export interface DeviceStatePayload {
  state: DeviceState;
  /** Whose button: the hub's customer or one of its household. */
  customerId: number;
  linkId?: number;
  /** ISO-8601 of the state change. */
  at: string;
}

/** `<prefix>/entitlement`, out, retained. */
export interface EntitlementPayload {
  customerId: number;
  entitled: boolean;
  /** ISO-8601. */
  checkedAt: string;
}

/**
 * `<prefix>/health`, out, retained: what `status` says, in brief, for a
 * central broker watching a fleet. Published on change and at most once a minute otherwise.
 */
export interface HealthPayload {
  version: string;
  /** `problems` is empty. */
  healthy: boolean;
  /** The same words `status` prints, one a problem. */
  problems: string[];
  ble: StatusReport['ble'];
  mqtt: StatusReport['mqtt'];
  devices: StatusReport['devices'];
  /** The linked buttons by supervision; `problems` names the missing and low ones. */
  buttons: ButtonCounts;
  /** On the monotonic clock: right even after the wall clock jumped. */
  uptimeSeconds: number;
  /** Where the latest package update stands, as `status` says; null when none is recorded. */
  update: UpdateOutcome | null;
  /** ISO-8601 wall-clock stamp of this publish. */
  at: string;
}

/** Topic (below the prefix) to payload, the way Zigbee2MQTT's types/api.ts maps its own. */
export interface TopicPayloads {
  announce: AnnouncePayload;
  status: StatusPayload;
  'devices/<deviceId>': DeviceStatePayload;
  entitlement: EntitlementPayload;
  health: HealthPayload;
  'devices/<deviceId>/availability': AvailabilityPayload;
  'devices/<deviceId>/supervision': SupervisionPayload;
}

export function announceTopic(prefix: string): string {
  return `${prefix}/announce`;
}

export function statusTopic(prefix: string): string {
  return `${prefix}/status`;
}

export function healthTopic(prefix: string): string {
  return `${prefix}/health`;
}

export function entitlementTopic(prefix: string): string {
  return `${prefix}/entitlement`;
}

export function deviceTopic(prefix: string, deviceId: string): string {
  // The store only holds valid ids, but a `/`, `+` or `#` here would publish somewhere else
  // entirely, so the invariant is checked rather than trusted.
  if (!isValidDeviceId(deviceId)) {
    throw new PanicPairError('failure', `device id ${JSON.stringify(deviceId)} cannot be used in an MQTT topic`);
  }
  return `${prefix}/devices/${deviceId}`;
}

/** `<prefix>/devices/<deviceId>/availability`, out, retained: a linked button heard or missing. */
export function availabilityTopic(prefix: string, deviceId: string): string {
  return `${deviceTopic(prefix, deviceId)}/availability`;
}

/** `<prefix>/devices/<deviceId>/supervision`, out, retained: what Home Assistant's battery and "Last heard" read. */
export function supervisionTopic(prefix: string, deviceId: string): string {
  return `${deviceTopic(prefix, deviceId)}/supervision`;
}
