import { addBthome } from './bthome.js';
import { readJsonObject, startMqttSource, type MqttSource, type MqttSourceOptions, type Reading } from './mqtt-source.js';
import type { Advertisement, ProfileMatcher } from './profiles.js';
import { batteryPercent, type Sighting } from '../sighting.js';

// BLE gateways on the broker: Theengs Gateway and OpenMQTTGateway publish each advertisement they
// hear as JSON on `<base>/<gateway name>/BTtoMQTT/<MAC>`. Each goes through the same profiles as
// the hub's own radio. The sighting's source is `ble-gateway:<gateway name>` (the topic level
// before BTtoMQTT), so `scan` tells which ESP32 heard the button; the RSSI floor applies to it.

export const MAX_GATEWAY_MESSAGE_BYTES = 4096;
export const GATEWAY_SOURCE_PREFIX = 'ble-gateway';
/**
 * Gateways told apart as sources. Supervision keeps a clock per source and each linked button a
 * hearing per source, so a gateway name is state: anyone on the broker can publish under new
 * names by the ten thousand. Real gateways, a few per building, are heard first and
 * keep their names; past this, every further name is one source, OTHER_GATEWAYS.
 */
export const MAX_GATEWAY_SOURCES = 256;
/** The source of gateways past MAX_GATEWAY_SOURCES: `+` is no topic level, so no gateway's name. */
export const OTHER_GATEWAYS = `${GATEWAY_SOURCE_PREFIX}:+`;

export interface GatewayReport {
  /** As the gateway wrote it, e.g. `54:94:5E:9F:64:C4`. */
  address: string;
  rssi?: number;
  advertisement: Advertisement;
  /** Theengs' decoded `batt` (percent), when the message has one; checked once a profile matched. */
  batt?: unknown;
}

const HEX = /^(?:[0-9a-f]{2})*$/i;
const UUID = /^(?:0x)?([0-9a-f]{4}|[0-9a-f]{8}|[0-9a-f]{32})$/i;

/** A gateway message as a report, or why it is not one. Only the named fields are read. */
export function parseGatewayMessage(payload: Buffer): GatewayReport | { invalid: string } {
  const read = readJsonObject(payload, MAX_GATEWAY_MESSAGE_BYTES);
  if ('invalid' in read) return read;
  const { id, name, rssi, manufacturerdata, mfid, servicedata, servicedatauuid, batt } = read.object;
  if (typeof id !== 'string' || id.length === 0 || id.length > 64) return { invalid: 'id must be the device address, 1 to 64 characters' };
  if (rssi !== undefined && (typeof rssi !== 'number' || !(rssi >= -127 && rssi <= 20))) return { invalid: 'rssi must be a number from -127 to 20 (dBm)' };
  if (name !== undefined && typeof name !== 'string') return { invalid: 'name must be a string' };
  const advertisement: Advertisement = {};
  if (name !== undefined) advertisement.localName = name;

  for (const [field, hex] of [['manufacturerdata', manufacturerdata], ['mfid', mfid], ['servicedata', servicedata]] as const) {
    if (hex !== undefined && (typeof hex !== 'string' || !HEX.test(hex))) return { invalid: `${field} must be hex digits, two a byte` };
  }
  // OpenMQTTGateway may leave the data out once it decoded a beacon, keeping only the company id.
  const manufacturer = (manufacturerdata ?? mfid) as string | undefined;
  if (manufacturer !== undefined && manufacturer.length > 0) advertisement.manufacturerData = Buffer.from(manufacturer, 'hex');

  if (servicedatauuid !== undefined) {
    // Theengs writes `fcd2`, OpenMQTTGateway `0xfcd2`.
    const uuid = typeof servicedatauuid === 'string' ? UUID.exec(servicedatauuid.replaceAll('-', '')) : null;
    if (uuid === null) return { invalid: 'servicedatauuid must be a 16-, 32- or 128-bit UUID in hex, with or without 0x' };
    const data = servicedata as string | undefined;
    advertisement.serviceData = [data === undefined ? { uuid: uuid[1]!.toLowerCase() } : { uuid: uuid[1]!.toLowerCase(), data: Buffer.from(data, 'hex') }];
  }
  const report: GatewayReport = { address: id, advertisement };
  if (rssi !== undefined) report.rssi = rssi;
  if (batt !== undefined) report.batt = batt;
  return report;
}

/** The gateway's name from its topic: the level before `BTtoMQTT`, else the first level. */
export function gatewayName(topic: string): string {
  const levels = topic.split('/');
  return nameBefore(levels, levels.indexOf('BTtoMQTT'));
}

/** The gateway's name from its last will's topic (`<base>/<name>/LWT`), as its reports carry it. */
export function gatewayNameOfWill(topic: string): string {
  const levels = topic.split('/');
  return nameBefore(levels, levels.lastIndexOf('LWT'));
}

function nameBefore(levels: string[], at: number): string {
  const name = (at > 0 ? levels[at - 1] : levels[0]) || 'unnamed';
  return name.slice(0, 48);
}

export type GatewaySourceOptions = Omit<MqttSourceOptions, 'what' | 'read'> & {
  /** PANIC_PAIR_MQTT_BLE_GATEWAYS, e.g. `home/+/BTtoMQTT/+`. */
  filter: string;
  matcher: ProfileMatcher;
};

/** BLE gateways in the BTtoMQTT format as a source of sightings, through the BLE profiles. */
export function startBleGatewaySource(options: GatewaySourceOptions): MqttSource {
  const { matcher } = options;
  const sources = new Map<string, string>();
  const sourceOf = (topic: string): string => {
    const name = gatewayName(topic);
    return sources.get(name) ?? (sources.size < MAX_GATEWAY_SOURCES ? remember(name) : OTHER_GATEWAYS);
  };
  const remember = (name: string): string => {
    const word = `${GATEWAY_SOURCE_PREFIX}:${name}`;
    sources.set(name, word);
    return word;
  };
  const read = (topic: string, payload: Buffer, at: number): Reading => {
    const report = parseGatewayMessage(payload);
    if ('invalid' in report) return report;
    const match = matcher.advertisement(report.advertisement, report.address);
    if (match === undefined) return undefined;
    if (!match.ok) return { invalid: `matches profile ${match.profile} but has no usable deviceId: ${match.invalid}` };
    const sighting: Sighting = { deviceId: match.deviceId, source: sourceOf(topic), at, profile: match.profile };
    if (report.rssi !== undefined) sighting.rssi = report.rssi;
    if (match.deviceTypeId !== undefined) sighting.deviceTypeId = match.deviceTypeId;
    if (addGatewayBattery(sighting, report)) options.counters.batteryDropped += 1;
    return sighting;
  };
  return startMqttSource({ ...options, what: 'BLE gateway message', read });
}

/**
 * The battery a gateway passed on: the BTHome service data itself, else Theengs' decoded `batt`
 * (percent). True when a value was out of range (or no number) and left off, for the count.
 */
export function addGatewayBattery(sighting: Sighting, report: GatewayReport): boolean {
  const dropped = addBthome(sighting, report.advertisement.serviceData, report.address);
  if (sighting.battery !== undefined || report.batt === undefined) return dropped;
  const battery = batteryPercent(report.batt);
  if (battery === undefined) return true;
  sighting.battery = battery;
  return dropped;
}
