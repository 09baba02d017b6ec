import { describe, expect, it } from 'vitest';
import { PendingKeys } from '../../src/authentication/pending-keys.js';
import type { Sighting } from '../../src/sighting.js';
import { encryptReport, SHELLY_BUTTON, VECTOR } from './bthome-vectors.js';

const DEVICE = 'B1';
const sealed = (data: Uint8Array, address = VECTOR.mac): Sighting => ({ deviceId: DEVICE, source: 'ble', at: 7, sealed: { data, address } });

describe('a key being tried', () => {
  it('is settled by a report that verifies with it: the report read with the key, its data gone', async () => {
    const keys = new PendingKeys();
    const trial = keys.add(DEVICE, VECTOR.key);
    expect(keys.offer(sealed(VECTOR.serviceData))).toBe(true);
    expect(await trial.outcome).toStrictEqual({ verified: true, report: { deviceId: DEVICE, source: 'ble', at: 7, counter: 0x33221100 } });
    expect(keys.size).toBe(0);
    expect(keys.offer(sealed(VECTOR.serviceData))).toBe(false);
  });

  it('hands on the battery, the battery low flag and the trigger bit the report carries', async () => {
    const keys = new PendingKeys();
    const shelly = keys.add(DEVICE, SHELLY_BUTTON.key);
    keys.offer(sealed(SHELLY_BUTTON.serviceData, SHELLY_BUTTON.mac));
    expect(await shelly.outcome).toStrictEqual({ verified: true, report: { deviceId: DEVICE, source: 'ble', at: 7, counter: 442, battery: 100, triggerBased: true } });
    const low = keys.add(DEVICE, VECTOR.key);
    keys.offer(sealed(encryptReport({ key: VECTOR.key, mac: VECTOR.mac, counter: 3, objects: Buffer.from('1501', 'hex') })));
    expect(await low.outcome).toStrictEqual({ verified: true, report: { deviceId: DEVICE, source: 'ble', at: 7, counter: 3, batteryLow: true } });
  });

  it('is settled by a report that fails the check', async () => {
    const keys = new PendingKeys();
    const trial = keys.add(DEVICE, Buffer.alloc(16, 1));
    expect(keys.offer(sealed(VECTOR.serviceData))).toBe(true);
    expect(await trial.outcome).toStrictEqual({ verified: false, why: 'the integrity check does not verify with the key' });
  });

  it('is settled by BTHome sent without encryption, not by a report with no BTHome data', async () => {
    const keys = new PendingKeys();
    const trial = keys.add(DEVICE, VECTOR.key);
    expect(keys.offer({ deviceId: DEVICE, source: 'mqtt', at: 1 })).toBe(false);
    expect(keys.offer({ deviceId: 'B2', source: 'ble', at: 1, plainBthome: true })).toBe(false);
    expect(keys.size).toBe(1);
    expect(keys.offer({ deviceId: DEVICE, source: 'ble', at: 1, plainBthome: true })).toBe(true);
    expect(await trial.outcome).toStrictEqual({ verified: false, why: 'a report without BTHome service data' });
  });

  it('ends when another key is tried for the button, which is then the one tried', async () => {
    const keys = new PendingKeys();
    const first = keys.add(DEVICE, Buffer.alloc(16, 1));
    const second = keys.add(DEVICE, VECTOR.key);
    expect(await first.outcome).toStrictEqual({ verified: false, why: 'another key is being tried for it' });
    // Disposing the first, already settled, leaves the second waiting.
    first.dispose();
    expect(keys.size).toBe(1);
    keys.offer(sealed(VECTOR.serviceData));
    expect(await second.outcome).toMatchObject({ verified: true });
  });

  it('ends when disposed: no longer tried', async () => {
    const keys = new PendingKeys();
    const trial = keys.add(DEVICE, VECTOR.key);
    trial.dispose();
    expect(await trial.outcome).toStrictEqual({ verified: false, why: 'no longer tried' });
    expect(keys.size).toBe(0);
    expect(keys.offer(sealed(VECTOR.serviceData))).toBe(false);
  });
});
