import { describe, expect, it } from 'vitest';
import { parseAnnouncement } from '../../src/discovery/announce.js';
import { readCompactAnnouncement } from '../../src/discovery/compact-announcement.js';
import type { Sighting } from '../../src/sighting.js';

const AT = 1_700_000_000_000;

// An announcement's rules restated with JSON.parse, independently of src/: what the compact reader
// returns must be exactly what this returns, and it may only return what this accepts.
function reference(payload: Buffer): Sighting | undefined {
  if (payload.length > 4096) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { deviceId, deviceTypeId, rssi, battery } = value as Record<string, unknown>;
  if (typeof deviceId !== 'string' || !/^[A-Za-z0-9._:-]{1,64}$/.test(deviceId)) return undefined;
  if (deviceTypeId !== undefined && !Number.isSafeInteger(deviceTypeId)) return undefined;
  if (rssi !== undefined && (typeof rssi !== 'number' || !(rssi >= -127 && rssi <= 20))) return undefined;
  if (battery !== undefined && (!Number.isSafeInteger(battery) || !((battery as number) >= 0 && (battery as number) <= 100))) return undefined;
  const sighting: Sighting = { deviceId, source: 'mqtt', at: AT };
  if (deviceTypeId !== undefined) sighting.deviceTypeId = deviceTypeId as number;
  if (rssi !== undefined) sighting.rssi = rssi;
  if (battery !== undefined) sighting.battery = battery as number;
  return sighting;
}

const compact = (text: string) => readCompactAnnouncement(Buffer.from(text), AT);

const CORPUS = [
  '{"deviceId":"7F3A9C"}',
  '{"deviceId":"7F3A9C","rssi":-52}',
  '{"deviceId":"7F3A9C","rssi":0}',
  '{"deviceId":"7F3A9C","rssi":-0}',
  '{"deviceId":"7F3A9C","rssi":20}',
  '{"deviceId":"7F3A9C","rssi":21}',
  '{"deviceId":"7F3A9C","rssi":-127}',
  '{"deviceId":"7F3A9C","rssi":-128}',
  '{"deviceId":"7F3A9C","rssi":-052}',
  '{"deviceId":"7F3A9C","rssi":-52.5}',
  '{"deviceId":"7F3A9C","rssi":-5e1}',
  '{"deviceId":"7F3A9C","rssi":"-52"}',
  '{"deviceId":"7F3A9C","rssi":-}',
  '{"deviceId":"7F3A9C","rssi":}',
  '{"deviceId":"7F3A9C","deviceTypeId":3}',
  '{"deviceId":"7F3A9C","deviceTypeId":3,"rssi":-60}',
  '{"deviceId":"7F3A9C","rssi":-60,"deviceTypeId":3}',
  '{"deviceId":"7F3A9C","deviceTypeId":0}',
  '{"deviceId":"7F3A9C","deviceTypeId":-3}',
  '{"deviceId":"7F3A9C","deviceTypeId":03}',
  '{"deviceId":"7F3A9C","deviceTypeId":999999999999999}',
  '{"deviceId":"7F3A9C","deviceTypeId":9007199254740993}',
  '{"deviceId":"7F3A9C","deviceTypeId":3.5}',
  '{"deviceId":"7F3A9C","rssi":-60,"rssi":-70}',
  '{"deviceId":"7F3A9C","battery":87}',
  '{"deviceId":"7F3A9C","rssi":-52,"battery":0}',
  '{"deviceId":"7F3A9C","battery":100,"rssi":-52,"deviceTypeId":3}',
  '{"deviceId":"7F3A9C","deviceTypeId":3,"battery":15}',
  '{"deviceId":"7F3A9C","battery":101}',
  '{"deviceId":"7F3A9C","battery":-1}',
  '{"deviceId":"7F3A9C","battery":050}',
  '{"deviceId":"7F3A9C","battery":50.5}',
  '{"deviceId":"7F3A9C","battery":5e1}',
  '{"deviceId":"7F3A9C","battery":"50"}',
  '{"deviceId":"7F3A9C","battery":null}',
  '{"deviceId":"7F3A9C","battery":1000}',
  '{"deviceId":"7F3A9C","battery":50,"battery":60}',
  '{"deviceId":"7F3A9C","deviceTypeId":1,"deviceTypeId":2}',
  '{"deviceId":"7F3A9C","deviceId":"OTHER"}',
  '{"deviceId":"7F3A9C","customerId":99}',
  '{"deviceId":"7F3A9C"} ',
  ' {"deviceId":"7F3A9C"}',
  '{ "deviceId":"7F3A9C"}',
  '{"deviceId": "7F3A9C"}',
  '{"deviceId":"7F3A9C"}}',
  '{"deviceId":"7F3A9C"',
  '{"deviceId":"7F3A9C",}',
  '{"deviceId":"7F3A9C","rssi":-52',
  '{"deviceId":""}',
  `{"deviceId":"${'A'.repeat(64)}"}`,
  `{"deviceId":"${'A'.repeat(65)}"}`,
  '{"deviceId":"a.b_c:d-E9"}',
  '{"deviceId":"A/B"}',
  '{"deviceId":"A B"}',
  '{"deviceId":"A\\u0042"}',
  '{"deviceId":"A\\"B"}',
  '{"deviceId":"Ä"}',
  '{"deviceId":7}',
  '{"deviceid":"7F3A9C"}',
  '{"rssi":-52,"deviceId":"7F3A9C"}',
  '[{"deviceId":"7F3A9C"}]',
  '',
  '{}',
];

describe('readCompactAnnouncement', () => {
  it('reads the compact form a button sends', () => {
    expect(compact('{"deviceId":"7F3A9C","rssi":-52}')).toStrictEqual({ deviceId: '7F3A9C', source: 'mqtt', at: AT, rssi: -52 });
    expect(compact('{"deviceId":"X","rssi":-60,"deviceTypeId":3}')).toStrictEqual({ deviceId: 'X', source: 'mqtt', at: AT, deviceTypeId: 3, rssi: -60 });
    expect(compact('{"deviceId":"X","rssi":-60,"battery":42}')).toStrictEqual({ deviceId: 'X', source: 'mqtt', at: AT, rssi: -60, battery: 42 });
  });

  it.each(CORPUS)('agrees with JSON.parse on %s', (text) => {
    const payload = Buffer.from(text);
    const fast = readCompactAnnouncement(payload, AT);
    if (fast !== undefined) expect(fast).toStrictEqual(reference(payload));
    // and the whole parser, whichever path it takes, answers as the rules do
    const full = parseAnnouncement(payload, AT);
    const expected = reference(payload);
    if (expected === undefined) expect(full).toHaveProperty('invalid');
    else expect(full).toStrictEqual(expected);
  });

  it('never accepts what JSON.parse and the rules refuse, over 50,000 mutated payloads', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const alphabet = Buffer.from('{}[]":,-+.0123456789eE AZaz_:/\\u');
    const seeds = CORPUS.filter((text) => compact(text) !== undefined).map((text) => Buffer.from(text));
    let accepted = 0;
    for (let n = 0; n < 50_000; n++) {
      const bytes = [...seeds[random(seeds.length)]!];
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(bytes.length + 1);
        const byte = alphabet[random(alphabet.length)]!;
        const kind = random(3);
        if (kind === 0) bytes.splice(at, 0, byte);
        else if (kind === 1) bytes.splice(at, 1);
        else bytes[Math.min(at, bytes.length - 1)] = byte;
      }
      const payload = Buffer.from(bytes);
      const fast = readCompactAnnouncement(payload, AT);
      if (fast === undefined) continue;
      accepted += 1;
      expect(fast).toStrictEqual(reference(payload));
    }
    // the mutations keep enough payloads in the compact form for the check to mean something
    expect(accepted).toBeGreaterThan(1_000);
  });
});
