import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ANNOUNCEMENT_BYTES, parseAnnouncement } from '../../src/discovery/announce.js';

const AT = 1_700_000_000_000;
const parse = (text: string | Buffer) => parseAnnouncement(typeof text === 'string' ? Buffer.from(text) : text, AT);

describe('parseAnnouncement: valid', () => {
  it.each([
    ['{"deviceId":"7F3A9C"}', { deviceId: '7F3A9C', source: 'mqtt', at: AT }],
    ['{"deviceId":"7F3A9C","rssi":-61}', { deviceId: '7F3A9C', source: 'mqtt', at: AT, rssi: -61 }],
    ['{"deviceId":"7F3A9C","rssi":-61.5}', { deviceId: '7F3A9C', source: 'mqtt', at: AT, rssi: -61.5 }],
    ['{"deviceId":"a.b_c:d-E9","deviceTypeId":3}', { deviceId: 'a.b_c:d-E9', source: 'mqtt', at: AT, deviceTypeId: 3 }],
    ['{"deviceId":"X","deviceTypeId":7,"rssi":20}', { deviceId: 'X', source: 'mqtt', at: AT, deviceTypeId: 7, rssi: 20 }],
    ['{"deviceId":"X","rssi":-127}', { deviceId: 'X', source: 'mqtt', at: AT, rssi: -127 }],
    ['{"deviceId":"X","battery":0}', { deviceId: 'X', source: 'mqtt', at: AT, battery: 0 }],
    ['{ "deviceId": "X", "battery": 100, "rssi": -40 }', { deviceId: 'X', source: 'mqtt', at: AT, rssi: -40, battery: 100 }],
    ['{"deviceId":"X","battery":55.0}', { deviceId: 'X', source: 'mqtt', at: AT, battery: 55 }],
    ['{"deviceId":"X","customerId":99,"extra":{"a":1}}', { deviceId: 'X', source: 'mqtt', at: AT }],
    [` \n{"deviceId":"${'A'.repeat(64)}"}\n`, { deviceId: 'A'.repeat(64), source: 'mqtt', at: AT }],
  ])('%s', (text, expected) => {
    expect(parse(text)).toStrictEqual(expected);
  });

  it('never takes a customer from the announcement', () => {
    expect(parse('{"deviceId":"X","customerId":99}')).not.toHaveProperty('customerId');
  });
});

describe('parseAnnouncement: invalid', () => {
  it.each([
    ['not JSON', 'deviceId=X'],
    ['truncated JSON', '{"deviceId":"X"'],
    ['empty payload', ''],
    ['an array', '[{"deviceId":"X"}]'],
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"X"'],
    ['missing deviceId', '{"rssi":-50}'],
    ['empty deviceId', '{"deviceId":""}'],
    ['65-character deviceId', `{"deviceId":"${'A'.repeat(65)}"}`],
    ['numeric deviceId', '{"deviceId":123}'],
    ['deviceId with a space', '{"deviceId":"A B"}'],
    ['deviceId with /', '{"deviceId":"A/B"}'],
    ['deviceId with +', '{"deviceId":"A+"}'],
    ['deviceId with #', '{"deviceId":"#"}'],
    ['deviceId with a newline', '{"deviceId":"A\\n"}'],
    ['unicode deviceId', '{"deviceId":"Ä1"}'],
    ['deviceTypeId 1.5', '{"deviceId":"A","deviceTypeId":1.5}'],
    ['deviceTypeId "3"', '{"deviceId":"A","deviceTypeId":"3"}'],
    ['deviceTypeId null', '{"deviceId":"A","deviceTypeId":null}'],
    ['rssi "x"', '{"deviceId":"A","rssi":"x"}'],
    ['rssi 1000', '{"deviceId":"A","rssi":1000}'],
    ['rssi -128', '{"deviceId":"A","rssi":-128}'],
    ['rssi 1e999 (Infinity)', '{"deviceId":"A","rssi":1e999}'],
    ['battery 101', '{"deviceId":"A","battery":101}'],
    ['battery -1', '{"deviceId":"A","battery":-1}'],
    ['battery 50.5', '{"deviceId":"A","battery":50.5}'],
    ['battery "50"', '{"deviceId":"A","battery":"50"}'],
    ['battery null', '{"deviceId":"A","battery":null}'],
  ])('%s', (_name, text) => {
    const result = parse(text);
    expect(result).toHaveProperty('invalid');
    expect((result as { invalid: string }).invalid).toMatch(/\S/);
  });

  it.each([
    ['{"deviceId":123}', /^deviceId must be 1 to 64 characters/],
    ['{"rssi":-50}', /^deviceId must be 1 to 64 characters/],
    ['{"deviceId":"A B"}', /^deviceId must be 1 to 64 characters/],
    ['{"deviceId":"A","deviceTypeId":1.5}', /^deviceTypeId must be an integer/],
    ['{"deviceId":"A","deviceTypeId":9007199254740993}', /^deviceTypeId must be an integer/],
    ['{"deviceId":"A","rssi":"x"}', /^rssi must be a number from -127 to 20/],
    ['{"deviceId":"A","rssi":21}', /^rssi must be a number from -127 to 20/],
    ['{"deviceId":"A","battery":101}', /^battery must be an integer from 0 to 100/],
    ['{"deviceId":"A","battery":"full"}', /^battery must be an integer from 0 to 100/],
    ['[1]', /^not a JSON object/],
    ['{"deviceId":', /^not JSON/],
  ])('says which rule %s breaks, for the log', (text, reason) => {
    expect(parse(text)).toEqual({ invalid: expect.stringMatching(reason) });
  });

  it('rejects a payload over 4 KiB before parsing it', () => {
    const padding = 'x'.repeat(MAX_ANNOUNCEMENT_BYTES);
    const result = parse(`{"deviceId":"A","pad":"${padding}"}`);
    expect(result).toEqual({ invalid: expect.stringContaining('larger than 4096 bytes') });
    // Exactly at the limit is still read.
    const atLimit = `{"deviceId":"A","pad":"${'x'.repeat(MAX_ANNOUNCEMENT_BYTES - 25)}"}`;
    expect(Buffer.byteLength(atLimit)).toBe(MAX_ANNOUNCEMENT_BYTES);
    expect(parse(atLimit)).toMatchObject({ deviceId: 'A' });
  });
});

describe('parseAnnouncement: prototype pollution', () => {
  afterEach(() => {
    // Undo any damage so one failure cannot cascade into other tests.
    delete (Object.prototype as Record<string, unknown>).polluted;
  });

  it('reads a __proto__ key as plain data and leaves Object.prototype untouched', () => {
    const result = parse('{"__proto__":{"polluted":1},"deviceId":"A"}');
    expect(result).toStrictEqual({ deviceId: 'A', source: 'mqtt', at: AT });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });

  it('does not take deviceId from a __proto__ or constructor key', () => {
    expect(parse('{"__proto__":{"deviceId":"A"}}')).toHaveProperty('invalid');
    expect(parse('{"constructor":{"prototype":{"polluted":1}},"deviceId":"A"}')).toMatchObject({ deviceId: 'A' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
