import type { Sighting } from '../sighting.js';

// The announcement a button (or its bridge) actually sends, `{"deviceId":"7F3A9C","rssi":-52}`,
// read straight from the bytes. Under a flood of announcements JSON.parse was the daemon's largest
// cost of its own; this reader takes only that compact form, with its fields in that order, and
// answers undefined for anything else, which then goes through JSON.parse and the full checks in
// announce.ts. So it accepts nothing the full path would refuse, and returns the same sighting;
// test/discovery/compact-announcement.test.ts holds the two to that.
//
// The form: {"deviceId":"<1-64 of A-Z a-z 0-9 . _ : ->"} optionally followed, before the closing
// brace, by ,"rssi":<integer from -127 to 20>, ,"deviceTypeId":<integer of 1-15 digits> and
// ,"battery":<integer from 0 to 100>, each at most once, in any order; no whitespace, no escapes,
// nothing after the brace. A battery out of range is left to the full path, which refuses it.

const OPEN = Buffer.from('{"deviceId":"');
const RSSI = Buffer.from(',"rssi":');
const DEVICE_TYPE_ID = Buffer.from(',"deviceTypeId":');
const BATTERY = Buffer.from(',"battery":');
/** Longer than the form can be: a longer payload is left to the full path. */
const MAX_BYTES = 160;
const QUOTE = 0x22;
const CLOSE = 0x7d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

const ID_BYTE = new Uint8Array(256);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-') ID_BYTE[char.charCodeAt(0)] = 1;

export function readCompactAnnouncement(payload: Buffer, at: number): Sighting | undefined {
  const end = payload.length;
  if (end > MAX_BYTES || !startsWith(payload, OPEN, 0)) return undefined;
  const idStart = OPEN.length;
  let i = idStart;
  while (i < end && ID_BYTE[payload[i]!] === 1) i++;
  if (i === idStart || i - idStart > 64 || payload[i] !== QUOTE) return undefined;
  const deviceId = payload.toString('latin1', idStart, i);
  i++;

  let rssi: number | undefined;
  let deviceTypeId: number | undefined;
  let battery: number | undefined;
  while (payload[i] !== CLOSE) {
    if (rssi === undefined && startsWith(payload, RSSI, i)) {
      const number = readInteger(payload, i + RSSI.length, 3, true);
      if (number === undefined || !(number.value >= -127 && number.value <= 20)) return undefined;
      rssi = number.value;
      i = number.next;
    } else if (deviceTypeId === undefined && startsWith(payload, DEVICE_TYPE_ID, i)) {
      const number = readInteger(payload, i + DEVICE_TYPE_ID.length, 15, false);
      if (number === undefined) return undefined;
      deviceTypeId = number.value;
      i = number.next;
    } else if (battery === undefined && startsWith(payload, BATTERY, i)) {
      const number = readInteger(payload, i + BATTERY.length, 3, false);
      if (number === undefined || number.value > 100) return undefined;
      battery = number.value;
      i = number.next;
    } else {
      return undefined;
    }
  }
  if (i + 1 !== end) return undefined;

  const sighting: Sighting = { deviceId, source: 'mqtt', at };
  if (deviceTypeId !== undefined) sighting.deviceTypeId = deviceTypeId;
  if (rssi !== undefined) sighting.rssi = rssi;
  if (battery !== undefined) sighting.battery = battery;
  return sighting;
}

function startsWith(payload: Buffer, prefix: Buffer, at: number): boolean {
  if (at + prefix.length > payload.length) return false;
  for (let k = 0; k < prefix.length; k++) if (payload[at + k] !== prefix[k]) return false;
  return true;
}

/** A JSON integer of at most `maxDigits` digits without leading zeros, and where it ends. */
function readInteger(payload: Buffer, start: number, maxDigits: number, signed: boolean): { value: number; next: number } | undefined {
  let i = start;
  const negative = signed && payload[i] === MINUS;
  if (negative) i++;
  const first = i;
  let value = 0;
  while (i < payload.length && payload[i]! >= ZERO && payload[i]! <= NINE) {
    value = value * 10 + (payload[i]! - ZERO);
    i++;
  }
  const digits = i - first;
  if (digits === 0 || digits > maxDigits || (digits > 1 && payload[first] === ZERO)) return undefined;
  return { value: negative ? -value : value, next: i };
}
