import { describe, expect, it } from 'vitest';
import { addBthomeBattery, bthomeOf, readBthome } from '../../src/discovery/bthome.js';
import type { Sighting } from '../../src/sighting.js';

// BTHome v2 service data, from the format's own examples (bthome.io/format) and devices' real
// advertisements, then broken in the ways a radio breaks them.

const hex = (text: string): Buffer => Buffer.from(text.replaceAll(' ', ''), 'hex');

describe('readBthome', () => {
  it.each<[string, string, unknown]>([
    // The format page's example: temperature 25.00 C, humidity 50.55 %: no battery in it.
    ['the format example (temperature, humidity)', '40 02 c409 03 bf13', { triggerBased: false, encrypted: false }],
    ['battery 97 % alone (the table example 0x01 0x61)', '40 01 61', { battery: 97, triggerBased: false, encrypted: false }],
    // A Shelly BLU Button1: trigger based, packet id 33, battery 100 %, button event "press".
    ['a Shelly BLU Button1 press', '44 00 21 01 64 3a 01', { battery: 100, triggerBased: true, encrypted: false }],
    ['battery past other objects (packet id, temperature, humidity)', '40 00 05 01 37 02 c409 03 bf13', { battery: 55, triggerBased: false, encrypted: false }],
    ['battery and battery low set', '40 01 0c 15 01', { battery: 12, batteryLow: true, triggerBased: false, encrypted: false }],
    ['battery low clear, past pressure and illuminance', '40 04 138a01 05 138a14 15 00', { batteryLow: false, triggerBased: false, encrypted: false }],
    ['battery low past two-, three- and four-byte objects', '40 0c 020c 0b 010203 12 e204 15 01 3e 2a2c0960', { batteryLow: true, triggerBased: false, encrypted: false }],
    ['a text object (length first) before battery low', '40 53 03 616263 15 01', { batteryLow: true, triggerBased: false, encrypted: false }],
    ['a MAC included (bit 1) before the objects', '42 b2188d38c1a4 01 50', { battery: 80, triggerBased: false, encrypted: false }],
    ['0 % and 100 % are in range', '40 01 00', { battery: 0, triggerBased: false, encrypted: false }],
    // bthome-ble's test: battery 93 %, then an object id 0xfe nobody defines, then a humidity.
    ['an unknown object id after the battery', '40 01 5d fe 5d09 03 b718', { battery: 93, triggerBased: false, encrypted: false, stoppedEarly: 'object 0xfe of unknown length' }],
    ['an unknown object id before the battery', '40 30 01 01 50', { triggerBased: false, encrypted: false, stoppedEarly: 'object 0x30 of unknown length' }],
    ['data cut short inside a value', '40 01 50 02 c4', { battery: 80, triggerBased: false, encrypted: false, stoppedEarly: 'data cut short' }],
    ['data cut short at the battery value', '40 01', { triggerBased: false, encrypted: false, stoppedEarly: 'data cut short' }],
    ['a text object without its length', '40 53', { triggerBased: false, encrypted: false, stoppedEarly: 'data cut short' }],
    ['a MAC cut short', '42 b218', { triggerBased: false, encrypted: false, stoppedEarly: 'data cut short' }],
    ['only the device information', '40', { triggerBased: false, encrypted: false }],
    // Encrypted (bit 0): ciphertext, counter and MIC; nothing readable without the key.
    ['encrypted', '41 a47266c95f73 00112233 78237214', { triggerBased: false, encrypted: true }],
    ['encrypted, trigger based', '45 a47266c9 00112233 78237214', { triggerBased: true, encrypted: true }],
    ['a battery over 100 %: dropped and said', '40 01 65 15 01', { batteryLow: true, batteryDropped: true, triggerBased: false, encrypted: false }],
    ['battery low neither 0 nor 1: dropped and said', '40 01 32 15 02', { battery: 50, batteryDropped: true, triggerBased: false, encrypted: false }],
    ['the first battery of two counts', '40 01 32 01 10', { battery: 50, triggerBased: false, encrypted: false }],
  ])('%s', (_name, data, expected) => {
    expect(readBthome(hex(data))).toEqual(expected);
  });

  it.each<[string, string, string]>([
    ['empty data', '', 'BTHome service data is empty'],
    // BTHome v1 sent its objects straight after the UUID (0x181C): its first byte reads as version 1.
    ['BTHome v1 objects (0x23 0x02 0xc409: temperature)', '23 02 c409 03 03 bf13', 'BTHome version 1, not 2'],
    ['version 0', '00 01 50', 'BTHome version 0, not 2'],
    ['version 3', '60 01 50', 'BTHome version 3, not 2'],
  ])('refuses %s', (_name, data, reason) => {
    expect(readBthome(hex(data))).toEqual({ invalid: reason });
  });

  it('never throws and never reads a battery out of range, whatever the bytes', () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let n = 0; n < 20_000; n++) {
      const data = Buffer.alloc(random() % 32);
      for (let i = 0; i < data.length; i++) data[i] = random() & 0xff;
      if (data.length > 0 && n % 2 === 0) data[0] = 0x40 | (data[0]! & 0x06);
      const reading = readBthome(data);
      if (!('invalid' in reading) && reading.battery !== undefined) {
        expect(reading.battery).toBeGreaterThanOrEqual(0);
        expect(reading.battery).toBeLessThanOrEqual(100);
      }
    }
  });
});

describe('bthomeOf', () => {
  it('reads the service data under fcd2 (or its long forms) and nothing else', () => {
    expect(bthomeOf(undefined)).toBeUndefined();
    expect(bthomeOf([{ uuid: 'fe95', data: hex('40 01 50') }])).toBeUndefined();
    expect(bthomeOf([{ uuid: 'fcd2' }])).toBeUndefined();
    expect(bthomeOf([{ uuid: 'fe95', data: hex('00') }, { uuid: 'fcd2', data: hex('40 01 50') }])).toMatchObject({ battery: 80 });
    expect(bthomeOf([{ uuid: '0000fcd2', data: hex('40 01 51') }])).toMatchObject({ battery: 81 });
    expect(bthomeOf([{ uuid: '0000fcd200001000800000805f9b34fb', data: hex('40 01 52') }])).toMatchObject({ battery: 82 });
  });
});

describe('addBthomeBattery', () => {
  const sighting = (): Sighting => ({ deviceId: 'A', source: 'ble', at: 1 });

  it('puts the battery on the sighting and says when a value was dropped', () => {
    const s = sighting();
    expect(addBthomeBattery(s, readBthome(hex('40 01 0c 15 01')))).toBe(false);
    expect(s).toEqual({ deviceId: 'A', source: 'ble', at: 1, battery: 12, batteryLow: true });

    const dropped = sighting();
    expect(addBthomeBattery(dropped, readBthome(hex('40 01 ff')))).toBe(true);
    expect(dropped).toEqual({ deviceId: 'A', source: 'ble', at: 1 });

    const none = sighting();
    expect(addBthomeBattery(none, { invalid: 'x' })).toBe(false);
    expect(addBthomeBattery(none, undefined)).toBe(false);
    expect(none).toEqual({ deviceId: 'A', source: 'ble', at: 1 });
  });
});
