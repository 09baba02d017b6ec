import { readJsonObject } from './mqtt-source.js';
import type { ZigbeeDefinition } from './profiles.js';
import { batteryPercent, type Sighting } from '../sighting.js';
import { readLivenessWord } from './source-liveness.js';

// What Zigbee2MQTT tells of its devices besides the bridge events: the retained device list
// (`<base>/bridge/devices`, friendly name to IEEE address and definition), each device's own
// reports (`<base>/<friendly name>`, often with `battery` and `battery_low`), and the bridge's
// own state (`<base>/bridge/state`). A button's report is a sign of life for supervision
// and carries its battery.

/**
 * The device list carries every device's `exposes`: a few kilobytes each, so a large network's
 * list runs to a megabyte or two. Past this it is refused unread (the previous list stays).
 */
export const MAX_DEVICE_LIST_BYTES = 4 * 1024 * 1024;
/** Entries of the list looked at; a real coordinator holds a few hundred devices at most. */
export const MAX_DEVICE_LIST_ENTRIES = 4096;
export const MAX_DEVICE_REPORT_BYTES = 64 * 1024;

export interface ZigbeeDevice {
  friendlyName: string;
  /** Lower case, `0x` and 16 hex digits. */
  ieeeAddress: string;
  definition: ZigbeeDefinition;
}

const IEEE_ADDRESS = /^0x[0-9a-f]{16}$/i;

/**
 * The devices of the list that have a definition (supported, interviewed); the coordinator and
 * entries of other shapes are passed over, since the list is Zigbee2MQTT's and grows fields.
 */
export function parseDeviceList(payload: Buffer): ZigbeeDevice[] | { invalid: string } {
  if (payload.length > MAX_DEVICE_LIST_BYTES) return { invalid: `a device list larger than ${MAX_DEVICE_LIST_BYTES} bytes (${payload.length})` };
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return { invalid: 'not JSON' };
  }
  if (!Array.isArray(value)) return { invalid: 'the device list must be a JSON array' };
  const devices: ZigbeeDevice[] = [];
  const end = Math.min(value.length, MAX_DEVICE_LIST_ENTRIES);
  for (let i = 0; i < end; i++) {
    const entry: unknown = value[i];
    if (!isObject(entry)) continue;
    const { ieee_address: ieeeAddress, friendly_name: friendlyName, definition } = entry;
    if (typeof ieeeAddress !== 'string' || !IEEE_ADDRESS.test(ieeeAddress)) continue;
    if (typeof friendlyName !== 'string' || friendlyName.length === 0 || !isObject(definition)) continue;
    const found: ZigbeeDefinition = {};
    if (typeof definition.model === 'string') found.model = definition.model;
    if (typeof definition.vendor === 'string') found.vendor = definition.vendor;
    devices.push({ friendlyName, ieeeAddress: ieeeAddress.toLowerCase(), definition: found });
  }
  return devices;
}

/**
 * A friendly name that can be subscribed to as one exact topic, and is a device's own (not the
 * bridge's): MQTT wildcards and the NUL character cannot be in a topic name.
 */
export function isDeviceTopicName(friendlyName: string): boolean {
  if (friendlyName === 'bridge' || friendlyName.startsWith('bridge/')) return false;
  return !/[+#\u0000]/.test(friendlyName) && Buffer.byteLength(friendlyName) <= 1024;
}

/** What a device report says of the battery, unchecked until it is known to be a button's. */
export interface DeviceReport {
  battery?: unknown;
  batteryLow?: unknown;
}

export function readDeviceReport(payload: Buffer): DeviceReport | { invalid: string } {
  const read = readJsonObject(payload, MAX_DEVICE_REPORT_BYTES);
  if ('invalid' in read) return read;
  const { battery, battery_low: batteryLow } = read.object;
  const report: DeviceReport = {};
  // null: Zigbee2MQTT has no value yet.
  if (battery !== undefined && battery !== null) report.battery = battery;
  if (batteryLow !== undefined && batteryLow !== null) report.batteryLow = batteryLow;
  return report;
}

/** The report's battery on the sighting; true when a value was out of range or of the wrong kind. */
export function addZigbeeBattery(sighting: Sighting, report: DeviceReport): boolean {
  let dropped = false;
  if (report.battery !== undefined) {
    const battery = batteryPercent(report.battery);
    if (battery !== undefined) sighting.battery = battery;
    else dropped = true;
  }
  if (report.batteryLow !== undefined) {
    if (typeof report.batteryLow === 'boolean') sighting.batteryLow = report.batteryLow;
    else dropped = true;
  }
  return dropped;
}

/** `{"state":"online"}` / `{"state":"offline"}`, or the bare words of older versions. */
export function readBridgeState(payload: Buffer): boolean | { invalid: string } {
  const text = payload.toString('utf8').trim();
  if (!text.startsWith('{')) return readLivenessWord(payload);
  const read = readJsonObject(payload, 1024);
  if ('invalid' in read) return read;
  const { state } = read.object;
  if (typeof state !== 'string') return { invalid: 'the bridge state must be online or offline' };
  return readLivenessWord(Buffer.from(state));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
