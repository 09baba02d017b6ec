import type { SeededRandom } from './seeded-random.js';

// What a hostile or broken neighbour on the broker may publish: random bytes, messages cut short
// or mangled, oversized ones, deeply nested JSON, prototype-pollution keys, fields of every wrong
// type, and well-formed messages with random contents. Each target has a template of the real
// message, which most strategies start from, so that the fuzz reaches past the JSON parse.

export type HostileTarget = 'announce' | 'gateway' | 'zigbee';

/** Bigger than every size limit the daemon applies (4 KB messages, 64 KB bridge events). */
const OVERSIZED_MAX = 160 * 1024;
const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-';
const NASTY_ALPHABET = 'A-z0 /#+\\"\'{}[]:,\u0000\u0007\u001f\u007f\u00e9\u200b\u2028\ud83d\ude00\ufffd';
const HEX = '0123456789abcdefABCDEF';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function hostilePayload(random: SeededRandom, target: HostileTarget): Buffer {
  switch (random.int(0, 8)) {
    case 0:
      return random.bytes(random.chance(0.9) ? random.int(0, 300) : random.int(300, 9000));
    case 1: {
      const text = JSON.stringify(template(random, target));
      return Buffer.from(text.slice(0, random.int(0, text.length - 1)));
    }
    case 2:
      return mangled(random, Buffer.from(JSON.stringify(template(random, target))));
    case 3:
      return oversized(random, target);
    case 4:
      return Buffer.from(nested(random));
    case 5:
      return Buffer.from(polluted(random, target));
    case 6:
      return Buffer.from(JSON.stringify(wrongTypes(random, target)));
    case 7:
      return Buffer.from(JSON.stringify(randomJson(random, 4)));
    default:
      return Buffer.from(JSON.stringify(template(random, target)));
  }
}

/** A deviceId of the allowed alphabet (A-Z a-z 0-9 . _ : -), tagged so a test can tell its own. */
export function fuzzDeviceId(random: SeededRandom): string {
  return `FZ${random.text(ID_ALPHABET, random.int(1, 20))}`;
}

function macAddress(random: SeededRandom): string {
  return Array.from({ length: 6 }, () => random.int(0, 255).toString(16).padStart(2, '0')).join(':').toUpperCase();
}

function hex(random: SeededRandom, length: number): string {
  return random.text(HEX, length);
}

/** A well-formed message of the target's kind, with random contents. */
export function template(random: SeededRandom, target: HostileTarget): Record<string, Json> {
  switch (target) {
    case 'announce': {
      const message: Record<string, Json> = { deviceId: fuzzDeviceId(random) };
      if (random.chance(0.5)) message.deviceTypeId = random.int(-5, 1000);
      if (random.chance(0.5)) message.rssi = random.int(-130, 25);
      if (random.chance(0.3)) message.battery = random.int(-5, 110);
      return message;
    }
    case 'gateway': {
      const message: Record<string, Json> = { id: macAddress(random), rssi: random.int(-130, 25) };
      if (random.chance(0.6)) message.name = random.chance(0.7) ? `PANIC-${fuzzDeviceId(random)}` : random.text(NASTY_ALPHABET, random.int(0, 40));
      if (random.chance(0.4)) message.manufacturerdata = `5900${hex(random, random.int(0, 24))}`;
      if (random.chance(0.2)) message.mfid = hex(random, 4);
      if (random.chance(0.3)) message.servicedatauuid = random.pick(['fcd2', '0xfcd2', '0000fcd2-0000-1000-8000-00805f9b34fb', hex(random, random.int(0, 40))]);
      if (random.chance(0.3)) message.servicedata = random.chance(0.5) ? `40${hex(random, 2 * random.int(0, 12))}` : hex(random, random.int(0, 20));
      if (random.chance(0.2)) message.batt = random.chance(0.8) ? random.int(-5, 120) : randomJson(random, 0);
      return message;
    }
    case 'zigbee': {
      const definition: Record<string, Json> = { model: random.pick(['SOS-FUZZ', 'WXKG11LM', random.text(NASTY_ALPHABET, 8)]), vendor: random.pick(['FuzzCo', 'Aqara']) };
      if (random.chance(0.3)) definition.exposes = Array.from({ length: random.int(0, 30) }, () => randomJson(random, 2));
      const data: Record<string, Json> = {
        friendly_name: random.text(NASTY_ALPHABET, random.int(0, 20)),
        ieee_address: random.chance(0.8) ? `0x${hex(random, 16)}` : random.text(NASTY_ALPHABET, random.int(0, 20)),
        status: random.pick(['successful', 'started', 'failed', '']),
        definition: random.chance(0.9) ? definition : null,
      };
      return { type: random.pick(['device_interview', 'device_joined', 'device_announce', 'device_leave']), data };
    }
  }
}

/** Random byte flips, deletions and insertions. */
function mangled(random: SeededRandom, bytes: Buffer): Buffer {
  const copy = [...bytes];
  for (let edits = random.int(1, 6); edits > 0 && copy.length > 0; edits--) {
    const at = random.int(0, copy.length - 1);
    const edit = random.int(0, 2);
    if (edit === 0) copy[at] = random.int(0, 255);
    else if (edit === 1) copy.splice(at, 1);
    else copy.splice(at, 0, ...random.bytes(random.int(1, 8)));
  }
  return Buffer.from(copy);
}

function oversized(random: SeededRandom, target: HostileTarget): Buffer {
  const message = template(random, target);
  message.padding = 'x'.repeat(random.int(4 * 1024, OVERSIZED_MAX));
  return Buffer.from(JSON.stringify(message));
}

/** Arrays and objects nested up to thousands deep, balanced or not. */
function nested(random: SeededRandom): string {
  const depth = random.int(10, random.chance(0.5) ? 2_000 : 40_000);
  const open = random.chance(0.5) ? '[' : '{"a":';
  const close = open === '[' ? ']' : '}';
  const body = open.repeat(depth) + (random.chance(0.5) ? '1' : '');
  return random.chance(0.7) ? body + close.repeat(depth) : body;
}

/** The template with prototype-pollution keys at the top and inside, as raw JSON text. */
function polluted(random: SeededRandom, target: HostileTarget): string {
  const key = random.pick(POLLUTION_KEYS);
  const payload = `{"polluted":"yes","deviceId":"${fuzzDeviceId(random)}","isAdmin":true,"prototype":{"polluted":"yes"}}`;
  const body = JSON.stringify(template(random, target)).slice(1, -1);
  const inner = target === 'zigbee' ? body.replace('"data":{', `"data":{"${key}":${payload},`) : body;
  return random.chance(0.5) ? `{"${key}":${payload},${inner}}` : `{${inner},"${key}":${payload}}`;
}

/** The template with some fields replaced by values of other types. */
function wrongTypes(random: SeededRandom, target: HostileTarget): Record<string, Json> {
  const message = template(random, target);
  const keys = Object.keys(message);
  for (let swaps = random.int(1, 3); swaps > 0; swaps--) {
    const key = random.pick(keys);
    message[key] = random.pick<Json>([
      null,
      true,
      -0,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      3.5,
      '',
      'x'.repeat(random.int(65, 300)),
      random.text(NASTY_ALPHABET, random.int(1, 70)),
      [],
      [fuzzDeviceId(random)],
      {},
      randomJson(random, 3),
    ]);
  }
  return message;
}

export function randomJson(random: SeededRandom, depth: number): Json {
  const kind = random.int(0, depth > 0 ? 6 : 3);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return random.chance(0.5);
    case 2:
      return random.chance(0.5) ? random.int(-1e6, 1e6) : (random.next() - 0.5) * 10 ** random.int(-5, 300);
    case 3:
      return random.text(NASTY_ALPHABET, random.int(0, 30));
    case 4:
    case 5:
      return Array.from({ length: random.int(0, 5) }, () => randomJson(random, depth - 1));
    default: {
      const object: Record<string, Json> = {};
      for (let i = random.int(0, 5); i > 0; i--) {
        object[random.chance(0.2) ? random.pick(['deviceId', 'id', 'type', 'data', 'rssi']) : random.text(NASTY_ALPHABET, random.int(0, 8))] = randomJson(random, depth - 1);
      }
      return object;
    }
  }
}
