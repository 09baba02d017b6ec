import { fc, test as property } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { decryptBthome } from '../../src/authentication/bthome-encryption.js';
import { deviceInformation } from '../../src/authentication/device-information.js';
import { SAME_REPORT_MS, verifyReport, type VerifyingWith } from '../../src/authentication/verify-report.js';
import { encryptReport, VECTOR } from './bthome-vectors.js';

// CONTRACT.md section 19: service data to verified objects or a named refusal, against bthome.io's
// published vector and its MAC-included form.

const button = (overrides: Partial<VerifyingWith> = {}): VerifyingWith => ({ key: VECTOR.key, mac: VECTOR.mac, last: undefined, ...overrides });
const flip = (data: Uint8Array, index: number): Buffer => {
  const copy = Buffer.from(data);
  copy[index] = copy[index]! ^ 0x01;
  return copy;
};

describe("bthome.io's example", () => {
  it('decrypts to its objects and counter with its key and MAC', () => {
    const decrypted = decryptBthome(VECTOR.serviceData, VECTOR.key, VECTOR.mac);
    expect(decrypted).toMatchObject({ counter: VECTOR.counter, mac: VECTOR.mac, info: { encrypted: true, macIncluded: false, triggerBased: false, version: 2 } });
    expect(Buffer.from((decrypted as { plain: Uint8Array }).plain)).toEqual(Buffer.concat([Buffer.of(0x40), VECTOR.objects]));
    // The MAC as noble writes it, lower case, is the same MAC.
    expect(decryptBthome(VECTOR.serviceData, VECTOR.key, VECTOR.mac.toLowerCase())).toMatchObject({ counter: VECTOR.counter });
  });

  it('verifies, as a new report of the button', () => {
    expect(verifyReport(VECTOR.serviceData, button(), 0)).toMatchObject({ verdict: 'verified', counter: 1122867, triggerBased: false });
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

describe('the MAC-included form (device information bit 1)', () => {
  const objects = Buffer.from('01 5a 3a 01'.replace(/ /g, ''), 'hex'); // battery 90 %, a press
  const data = encryptReport({ key: VECTOR.key, mac: VECTOR.mac, counter: 7, objects, macIncluded: true, triggerBased: true });

  it('takes the MAC from the payload, reversed, whatever address the advertisement came from', () => {
    expect(data[0]).toBe(0x47);
    expect(data.subarray(1, 7).toString('hex')).toBe('a5808fe64854');
    const verdict = verifyReport(data, button({ mac: '7a:11:22:33:44:55' }), 0);
    expect(verdict).toMatchObject({ verdict: 'verified', counter: 7, mac: VECTOR.mac, triggerBased: true, report: { battery: 90, encrypted: true, triggerBased: true } });
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
    expect(verifyReport(Buffer.from('40015a', 'hex'), button(), 0)).toMatchObject({ verdict: 'plain' });
    expect(verifyReport(undefined, button(), 0)).toMatchObject({ verdict: 'plain' });
  });
});

describe('counters', () => {
  const at = (counter: number): Buffer => encryptReport({ key: VECTOR.key, mac: VECTOR.mac, counter, objects: Buffer.from('015a', 'hex') });
  const last = { counter: 100, at: 50_000 };

  it('a greater counter is a new report; the same one within 10 s is the same report, counted once', () => {
    expect(verifyReport(at(101), button({ last }), 51_000)).toMatchObject({ verdict: 'verified', counter: 101 });
    expect(verifyReport(at(100), button({ last }), 50_000 + SAME_REPORT_MS - 1)).toEqual({ verdict: 'repeat', counter: 100 });
  });

  it('the same counter later, or a smaller one, is replayed; a smaller one says the counter went back', () => {
    expect(verifyReport(at(100), button({ last }), 50_000 + SAME_REPORT_MS)).toEqual({ verdict: 'replayed', counter: 100, wentBack: false });
    expect(verifyReport(at(3), button({ last }), 50_100)).toEqual({ verdict: 'replayed', counter: 3, wentBack: true });
  });

  it('counters up to 2^32 - 1 compare as unsigned numbers', () => {
    expect(verifyReport(at(0xffff_fffe), button({ last: { counter: 0x7fff_ffff, at: 0 } }), 60_000)).toMatchObject({ verdict: 'verified', counter: 0xffff_fffe });
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
