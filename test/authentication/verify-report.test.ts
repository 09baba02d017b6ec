import { fc, test as property } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { decryptBthome, macBytes } from '../../src/authentication/bthome-encryption.js';
import { deviceInformation } from '../../src/authentication/device-information.js';
import { SAME_REPORT_MS, verifyReport, type VerifyingWith } from '../../src/authentication/verify-report.js';
import { COUNTED, COUNTER_ENDS, encryptReport, MAC_INCLUDED, MOTION, SHELLY_BUTTON, VECTOR, type PublishedReport } from './bthome-vectors.js';

// Service data to verified objects or a named refusal, against published
// vectors (bthome.io's example and bthome-ble's tests, bthome-vectors.ts): each byte of them comes
// from outside this project.

const button = (overrides: Partial<VerifyingWith> = {}): VerifyingWith => ({ key: VECTOR.key, mac: VECTOR.mac, last: undefined, ...overrides });
const sentBy = (report: PublishedReport, last?: VerifyingWith['last']): VerifyingWith => ({ key: report.key, mac: report.mac, last });
const flip = (data: Uint8Array, index: number): Buffer => {
  const copy = Buffer.from(data);
  copy[index] = copy[index]! ^ 0x01;
  return copy;
};

describe("bthome.io's example", () => {
  it('decrypts to its objects and counter with its key and MAC', () => {
    const decrypted = decryptBthome(VECTOR.serviceData, VECTOR.key, VECTOR.mac);
    // Its counter bytes 00 11 22 33, little-endian.
    expect(decrypted).toMatchObject({ counter: 0x33221100, mac: VECTOR.mac, info: { encrypted: true, macIncluded: false, triggerBased: false, version: 2 } });
    // What a plain report of the same objects holds: device information 0x40, then the objects.
    expect(Buffer.from((decrypted as { plain: Uint8Array }).plain).toString('hex')).toBe('4002ca0903bf13');
    // The MAC as noble writes it, lower case, is the same MAC.
    expect(decryptBthome(VECTOR.serviceData, VECTOR.key, VECTOR.mac.toLowerCase())).toMatchObject({ counter: 0x33221100 });
    const motion = decryptBthome(MOTION.serviceData, MOTION.key, MOTION.mac);
    expect(Buffer.from((motion as { plain: Uint8Array }).plain).toString('hex')).toBe('402101');
  });

  it('verifies, as a new report of the button', () => {
    expect(verifyReport(VECTOR.serviceData, button(), 0)).toMatchObject({ verdict: 'verified', counter: 0x33221100, triggerBased: false, mac: VECTOR.mac });
  });

  it('fails to verify with a wrong key, a changed counter, a changed byte or a reversed MAC', () => {
    const wrongKey = Buffer.from(VECTOR.key);
    wrongKey[15] = wrongKey[15]! ^ 0x80;
    expect(verifyReport(VECTOR.serviceData, button({ key: wrongKey }), 0)).toMatchObject({ verdict: 'forged' });
    const counterAt = VECTOR.serviceData.length - 8;
    expect(verifyReport(flip(VECTOR.serviceData, counterAt), button(), 0)).toMatchObject({ verdict: 'forged' });
    for (let index = 1; index < VECTOR.serviceData.length; index++) {
      expect(verifyReport(flip(VECTOR.serviceData, index), button(), 0), `byte ${index}`).toMatchObject({ verdict: 'forged' });
    }
    // The device-information byte is in the nonce: set the trigger bit and the check fails.
    expect(verifyReport(Buffer.concat([Buffer.of(0x45), VECTOR.serviceData.subarray(1)]), button(), 0)).toMatchObject({ verdict: 'forged' });
    const reversed = VECTOR.mac.split(':').reverse().join(':');
    expect(verifyReport(VECTOR.serviceData, button({ mac: reversed }), 0)).toMatchObject({ verdict: 'forged' });
  });
});

describe("bthome-ble's published reports", () => {
  it('each verifies with its key and the address it came from, at the counter its bytes hold', () => {
    for (const report of [MOTION, COUNTED.at1122866, COUNTED.at1122867, COUNTED.at1122868, COUNTER_ENDS.highest, COUNTER_ENDS.zero, MAC_INCLUDED, SHELLY_BUTTON]) {
      expect(verifyReport(report.serviceData, sentBy(report), 0), report.serviceData.toString('hex')).toMatchObject({ verdict: 'verified', counter: report.counter });
    }
  });

  it('a Shelly BLU Button says it is trigger based, and its battery, read from its decrypted objects', () => {
    // Its objects, decrypted with node:crypto alone: packet id 7 (0x00), battery 100 % (0x01), a press (0x3a).
    expect(verifyReport(SHELLY_BUTTON.serviceData, sentBy(SHELLY_BUTTON), 0)).toMatchObject({
      verdict: 'verified', counter: 442, triggerBased: true, mac: SHELLY_BUTTON.mac, report: { battery: 100, triggerBased: true, encrypted: true },
    });
    expect(verifyReport(SHELLY_BUTTON.serviceData, { ...sentBy(SHELLY_BUTTON), key: VECTOR.key }, 0)).toMatchObject({ verdict: 'forged' });
  });
});

describe('the MAC-included form (device information bit 1)', () => {
  const data = MAC_INCLUDED.serviceData;

  it('takes the MAC from the payload, reversed, whatever address the advertisement came from', () => {
    expect(data[0]).toBe(0x43);
    expect(data.subarray(1, 7).toString('hex')).toBe('a5808fe64854');
    const verdict = verifyReport(data, button({ mac: '7a:11:22:33:44:55' }), 0);
    expect(verdict).toMatchObject({ verdict: 'verified', counter: 0x33221100, mac: MAC_INCLUDED.mac, triggerBased: false, report: { encrypted: true, triggerBased: false } });
    // bthome-ble reads 25.06 °C and 50.55 % from it: the plain form has no MAC and no MAC bit.
    const decrypted = decryptBthome(data, MAC_INCLUDED.key, '7a:11:22:33:44:55');
    expect(Buffer.from((decrypted as { plain: Uint8Array }).plain).toString('hex')).toBe('4002ca0903bf13');
  });

  it('fails to verify with a changed byte anywhere, a wrong key, or the MAC in the wrong order', () => {
    for (let index = 1; index < data.length; index++) expect(verifyReport(flip(data, index), button(), 0), `byte ${index}`).toMatchObject({ verdict: 'forged' });
    const wrongKey = Buffer.alloc(16, 7);
    expect(verifyReport(data, button({ key: wrongKey }), 0)).toMatchObject({ verdict: 'forged' });
    const unreversed = Buffer.concat([data.subarray(0, 1), Buffer.from(data.subarray(1, 7)).reverse(), data.subarray(7)]);
    expect(verifyReport(unreversed, button(), 0)).toMatchObject({ verdict: 'forged' });
  });
});

describe('plain reports of a keyed button', () => {
  it('BTHome without bit 0, or no service data at all, is plain', () => {
    expect(verifyReport(Buffer.from('40015a', 'hex'), button(), 0)).toEqual({ verdict: 'plain', why: 'a BTHome report without encryption' });
    expect(verifyReport(undefined, button(), 0)).toEqual({ verdict: 'plain', why: 'a report without BTHome service data' });
  });

  it('empty service data, or another BTHome version, is plain, and says which', () => {
    expect(decryptBthome(Buffer.alloc(0), VECTOR.key, VECTOR.mac)).toEqual({ refusal: 'plain', why: 'empty BTHome service data' });
    // Version 1 (0x21), its encrypted bit set.
    expect(decryptBthome(Buffer.concat([Buffer.of(0x21), VECTOR.serviceData.subarray(1)]), VECTOR.key, VECTOR.mac)).toEqual({ refusal: 'plain', why: 'BTHome version 1, not 2' });
  });
});

describe('encrypted data that cannot be checked is forged, and says why', () => {
  const shortest = (bytes: number, info = 0x41): Buffer => Buffer.concat([Buffer.of(info), Buffer.alloc(bytes - 1, 0x33)]);

  it('shorter than the counter and the check after the device information (and the MAC, when included)', () => {
    expect(decryptBthome(shortest(8), VECTOR.key, VECTOR.mac)).toEqual({ refusal: 'forged', why: 'data cut short' });
    expect(decryptBthome(shortest(9), VECTOR.key, VECTOR.mac)).toEqual({ refusal: 'forged', why: 'the integrity check does not verify with the key' });
    for (const bytes of [1, 6, 7, 14]) expect(decryptBthome(shortest(bytes, 0x43), VECTOR.key, VECTOR.mac), `${bytes} bytes`).toEqual({ refusal: 'forged', why: 'data cut short' });
    expect(decryptBthome(shortest(15, 0x43), VECTOR.key, VECTOR.mac)).toEqual({ refusal: 'forged', why: 'the integrity check does not verify with the key' });
  });

  it('without a MAC to build the nonce from, or without a 16-byte key', () => {
    expect(decryptBthome(VECTOR.serviceData, VECTOR.key, 'gateway-7')).toEqual({ refusal: 'forged', why: 'no MAC address to check the report with' });
    expect(decryptBthome(VECTOR.serviceData, VECTOR.key.subarray(0, 15), VECTOR.mac)).toEqual({ refusal: 'forged', why: 'no usable key' });
  });
});

describe('a MAC address', () => {
  it('is 6 bytes written in hex, in any case, with colons, dashes or nothing between them', () => {
    expect(macBytes('54:48:E6:8F:80:A5')).toEqual(Buffer.from([0x54, 0x48, 0xe6, 0x8f, 0x80, 0xa5]));
    expect(macBytes('54-48-e6-8f-80-a5')).toEqual(Buffer.from([0x54, 0x48, 0xe6, 0x8f, 0x80, 0xa5]));
    for (const text of ['x54:48:E6:8F:80:A5', '54:48:E6:8F:80:A5:01', '54:48:E6:8F:80', 'gateway-7']) expect(macBytes(text), text).toBeUndefined();
  });

  it('taken from a MAC-included report, is written upper case with every byte in two digits', () => {
    const mac = '0A:01:E6:8F:80:05';
    const data = encryptReport({ key: VECTOR.key, mac, counter: 1, objects: VECTOR.objects, macIncluded: true });
    expect(decryptBthome(data, VECTOR.key, VECTOR.mac)).toMatchObject({ mac });
  });
});

describe("counters, on bthome-ble's reports of one button", () => {
  const last = { counter: 1122867, at: 50_000 };
  const verify = (report: PublishedReport, at: number, counted = last) => verifyReport(report.serviceData, sentBy(report, counted), at);

  it('a greater counter is a new report; the same one within 10 s is the same report, counted once', () => {
    expect(verify(COUNTED.at1122868, 51_000)).toMatchObject({ verdict: 'verified', counter: 1122868 });
    expect(verify(COUNTED.at1122867, 50_000 + SAME_REPORT_MS - 1)).toEqual({ verdict: 'repeat', counter: 1122867 });
    expect(verify(COUNTED.at1122867, 50_000)).toEqual({ verdict: 'repeat', counter: 1122867 });
  });

  it('the same counter later, or a smaller one, is replayed; a smaller one says the counter went back', () => {
    expect(verify(COUNTED.at1122867, 50_000 + SAME_REPORT_MS)).toEqual({ verdict: 'replayed', counter: 1122867, wentBack: false });
    // Heard before the report it repeats was counted (a recording): no repeat of it.
    expect(verify(COUNTED.at1122867, 49_999)).toEqual({ verdict: 'replayed', counter: 1122867, wentBack: false });
    expect(verify(COUNTED.at1122866, 50_100)).toEqual({ verdict: 'replayed', counter: 1122866, wentBack: true });
    // bthome-ble takes a counter back to 0 after the highest; here it went back (a battery change, or a recording).
    expect(verify(COUNTER_ENDS.zero, 60_000, { counter: 0xffff_ffff, at: 0 })).toEqual({ verdict: 'replayed', counter: 0, wentBack: true });
  });

  it('counters up to 2^32 - 1 compare as unsigned numbers', () => {
    expect(verify(COUNTER_ENDS.highest, 60_000, { counter: 0x7fff_ffff, at: 0 })).toMatchObject({ verdict: 'verified', counter: 0xffff_ffff });
  });
});

describe("the tests' own button (encryptReport)", () => {
  it('sends the bytes bthome-ble publishes, so the reports other tests make are real ones', () => {
    const objects = VECTOR.objects;
    expect(encryptReport({ key: VECTOR.key, mac: VECTOR.mac, counter: 0x33221100, objects })).toEqual(VECTOR.serviceData);
    expect(encryptReport({ key: VECTOR.key, mac: VECTOR.mac, counter: 1122867, objects })).toEqual(COUNTED.at1122867.serviceData);
    expect(encryptReport({ key: VECTOR.key, mac: VECTOR.mac, counter: 0x33221100, objects, macIncluded: true })).toEqual(MAC_INCLUDED.serviceData);
    expect(encryptReport({ key: MOTION.key, mac: MOTION.mac, counter: 0x33221100, objects: MOTION.objects })).toEqual(MOTION.serviceData);
    const press = Buffer.from('000701643a01', 'hex');
    expect(encryptReport({ key: SHELLY_BUTTON.key, mac: SHELLY_BUTTON.mac, counter: 442, objects: press, triggerBased: true })).toEqual(SHELLY_BUTTON.serviceData);
  });
});

describe('device information', () => {
  it('reads every bit and the version', () => {
    expect(deviceInformation(0x47)).toEqual({ encrypted: true, macIncluded: true, triggerBased: true, version: 2 });
    expect(deviceInformation(0x40)).toEqual({ encrypted: false, macIncluded: false, triggerBased: false, version: 2 });
    expect(deviceInformation(0x21).version).toBe(1);
  });
});

property.prop([fc.uint8Array({ maxLength: 64 })])('any bytes end as a verdict, never a throw, and never verify without the key', (bytes) => {
  const verdict = verifyReport(bytes, button(), 0);
  expect(['forged', 'plain']).toContain(verdict.verdict);
});
