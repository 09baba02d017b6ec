import type { Sighting } from '../sighting.js';

// BTHome v2 service data (UUID 0xFCD2, https://bthome.io/format): what a button says of its
// battery. Read only for an advertisement a profile already matched, so
// nothing here runs for the phones and beacons that make most of the radio's traffic.
//
// The data: one byte of device information (bit 0 encrypted, bit 1 a 6-byte MAC follows, bit 2
// trigger based, bits 5-7 the version), then objects, each an id byte and a value whose length the
// id fixes. Object 0x01 is the battery percent (uint8), 0x15 battery low (uint8, 0 or 1). An id
// whose length is not known ends the reading: what came before it is kept.

/** The service data UUID, as noble and the gateways write it once `0x` is gone. */
export const BTHOME_UUID = 'fcd2';
/** Its other spellings (32-bit, 128-bit on the Bluetooth base) a gateway may use. */
const BTHOME_UUIDS = new Set([BTHOME_UUID, '0000fcd2', '0000fcd200001000800000805f9b34fb']);

export interface BthomeReport {
  /** Percent 0 to 100 (object 0x01). */
  battery?: number;
  /** Object 0x15: the button says its battery is low. */
  batteryLow?: boolean;
  /** A battery value out of range was sent and left out: the source counts it (`batteryDropped`). */
  batteryDropped?: true;
  /** Device information bit 2: it sends when something happens, not at a steady pace. */
  triggerBased: boolean;
  /** Encrypted objects cannot be read without the button's key: no battery from them. */
  encrypted: boolean;
  /** Why reading stopped before the end: an object id of unknown length, or data cut short. */
  stoppedEarly?: string;
}

export type BthomeReading = BthomeReport | { invalid: string };

const ENCRYPTED = 0x01;
const MAC_INCLUDED = 0x02;
const TRIGGER_BASED = 0x04;
const BATTERY = 0x01;
const BATTERY_LOW = 0x15;
const TEXT = 0x53;
const RAW = 0x54;

/**
 * Value lengths of the fixed-size objects of BTHome v2, by object id; 0: not known (or, for 0x53
 * text and 0x54 raw, given by the value's first byte). From the format's table of sensor,
 * binary sensor, event and device information objects.
 */
const LENGTHS = new Uint8Array(256);
const setLengths = (length: number, ids: number[]): void => {
  for (const id of ids) LENGTHS[id] = length;
};
setLengths(1, [0x00, 0x01, 0x09, 0x0f, 0x10, 0x11, 0x2e, 0x2f, 0x3a, 0x46, 0x57, 0x58, 0x59, 0x60, 0x64]);
for (let id = 0x15; id <= 0x2d; id++) LENGTHS[id] = 1; // binary sensors
setLengths(2, [0x02, 0x03, 0x06, 0x07, 0x08, 0x0c, 0x0d, 0x0e, 0x12, 0x13, 0x14, 0x3c, 0x3d, 0x3f, 0x40, 0x41, 0x43, 0x44, 0x45, 0x47, 0x48, 0x49, 0x4a, 0x51, 0x52, 0x56, 0x5a, 0x5d, 0x5e, 0x5f, 0x61, 0xf0]);
setLengths(3, [0x04, 0x05, 0x0a, 0x0b, 0x42, 0x4b, 0xf2]);
setLengths(4, [0x3e, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x55, 0x5b, 0x5c, 0x62, 0x63, 0xf1]);

export function isBthomeUuid(uuid: string): boolean {
  return BTHOME_UUIDS.has(uuid);
}

/** The BTHome service data among an advertisement's, read; undefined when it carries none. */
export function bthomeOf(serviceData: ReadonlyArray<{ uuid: string; data?: Uint8Array }> | undefined): BthomeReading | undefined {
  if (serviceData === undefined) return undefined;
  for (let i = 0; i < serviceData.length; i++) {
    const entry = serviceData[i]!;
    if (entry.data !== undefined && isBthomeUuid(entry.uuid)) return readBthome(entry.data);
  }
  return undefined;
}

/** The service data after the UUID. Pure; never throws, whatever the bytes. */
export function readBthome(data: Uint8Array): BthomeReading {
  if (data.length === 0) return { invalid: 'BTHome service data is empty' };
  const info = data[0]!;
  const version = info >> 5;
  if (version !== 2) return { invalid: `BTHome version ${version}, not 2` };
  const report: BthomeReport = { triggerBased: (info & TRIGGER_BASED) !== 0, encrypted: (info & ENCRYPTED) !== 0 };
  if (report.encrypted) return report;
  let at = (info & MAC_INCLUDED) !== 0 ? 7 : 1;
  if (at > data.length) return stopped(report, 'data cut short');
  while (at < data.length) {
    const id = data[at]!;
    let length = LENGTHS[id]!;
    let valueAt = at + 1;
    if (id === TEXT || id === RAW) {
      if (valueAt >= data.length) return stopped(report, 'data cut short');
      length = data[valueAt]!;
      valueAt += 1;
    } else if (length === 0) {
      return stopped(report, `object 0x${id.toString(16).padStart(2, '0')} of unknown length`);
    }
    if (valueAt + length > data.length) return stopped(report, 'data cut short');
    if (id === BATTERY && report.battery === undefined) readBattery(report, data[valueAt]!);
    else if (id === BATTERY_LOW && report.batteryLow === undefined) readBatteryLow(report, data[valueAt]!);
    at = valueAt + length;
  }
  return report;
}

function readBattery(report: BthomeReport, value: number): void {
  if (value <= 100) report.battery = value;
  else report.batteryDropped = true;
}

function readBatteryLow(report: BthomeReport, value: number): void {
  if (value <= 1) report.batteryLow = value === 1;
  else report.batteryDropped = true;
}

function stopped(report: BthomeReport, why: string): BthomeReport {
  report.stoppedEarly = why;
  return report;
}

/** A sighting's battery from the reading; true when a value was dropped, for the source to count. */
export function addBthomeBattery(sighting: Sighting, reading: BthomeReading | undefined): boolean {
  if (reading === undefined || 'invalid' in reading) return false;
  if (reading.battery !== undefined) sighting.battery = reading.battery;
  if (reading.batteryLow !== undefined) sighting.batteryLow = reading.batteryLow;
  if (reading.triggerBased) sighting.triggerBased = true;
  return reading.batteryDropped === true;
}

/**
 * What a button's BTHome service data tells its sighting: the battery of a plain report, or, for an
 * encrypted one, the data itself and the address it came from, for the button's key to verify and
 * read at the hub. True when a battery value was dropped, for the source to count.
 */
export function addBthome(sighting: Sighting, serviceData: ReadonlyArray<{ uuid: string; data?: Uint8Array }> | undefined, address: string): boolean {
  if (serviceData === undefined) return false;
  for (let i = 0; i < serviceData.length; i++) {
    const entry = serviceData[i]!;
    if (entry.data === undefined || !isBthomeUuid(entry.uuid)) continue;
    if (entry.data.length > 0 && (entry.data[0]! & ENCRYPTED) !== 0) {
      sighting.sealed = { data: entry.data, address };
      return false;
    }
    sighting.plainBthome = true;
    return addBthomeBattery(sighting, readBthome(entry.data));
  }
  return false;
}
