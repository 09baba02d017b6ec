import { describe, expect, it } from 'vitest';
import {
  decideLink,
  entitlementIsFresh,
  linkedRecord,
  linkingRecord,
  passesRssiFloor,
  unlinkedRecord,
  type LinkContext,
} from '../../src/pairing/decisions.js';
import type { DeviceRecord } from '../../src/store/record.js';

const now = 1_700_000_000_000;
const record = (state: DeviceRecord['state']): DeviceRecord => ({
  deviceId: 'A1',
  state,
  customerId: 42,
  source: 'mqtt',
  updatedAt: new Date(now).toISOString(),
});
const base: LinkContext = { record: undefined, busy: false, trigger: 'window', strongEnough: true, lastFailureAt: undefined, now };

describe('decideLink', () => {
  const cases: Array<[string, Partial<LinkContext>, ReturnType<typeof decideLink>]> = [
    ['a new button in a window', {}, { link: true }],
    ['a new button in auto mode', { trigger: 'auto' }, { link: true }],
    ['a targeted request', { trigger: 'targeted' }, { link: true }],
    ['nobody asked', { trigger: undefined }, { link: false, reason: 'not-requested' }],
    ['already linked, even when targeted', { record: record('linked'), trigger: 'targeted' }, { link: false, reason: 'linked' }],
    ['a job under way', { busy: true, trigger: 'targeted' }, { link: false, reason: 'busy' }],
    ['weak in a window', { strongEnough: false }, { link: false, reason: 'weak' }],
    ['weak in auto mode', { strongEnough: false, trigger: 'auto' }, { link: false, reason: 'weak' }],
    ['weak but targeted: the floor does not apply', { strongEnough: false, trigger: 'targeted' }, { link: true }],
    ['rejected before, in a window', { record: record('rejected') }, { link: false, reason: 'rejected' }],
    ['rejected before, targeted: the installer asks again', { record: record('rejected'), trigger: 'targeted' }, { link: true }],
    ['failed before, in a window', { record: record('failed') }, { link: true }],
    ['failed just now, in a window', { record: record('failed'), lastFailureAt: now - 4_999 }, { link: false, reason: 'cooling-down' }],
    ['failed 5 s ago, in a window', { record: record('failed'), lastFailureAt: now - 5_000 }, { link: true }],
    ['failed 5 s ago, in auto mode', { record: record('failed'), lastFailureAt: now - 5_000, trigger: 'auto' }, { link: false, reason: 'cooling-down' }],
    ['failed 30 s ago, in auto mode', { record: record('failed'), lastFailureAt: now - 30_000, trigger: 'auto' }, { link: true }],
    ['failed just now, targeted', { record: record('failed'), lastFailureAt: now, trigger: 'targeted' }, { link: true }],
    ['a linking record left by a crash, in a window', { record: record('linking') }, { link: true }],
  ];
  for (const [name, overrides, expected] of cases) {
    it(name, () => expect(decideLink({ ...base, ...overrides })).toEqual(expected));
  }
});

describe('passesRssiFloor', () => {
  const sighting = { deviceId: 'A1', at: now };
  it('holds back a BLE button below the floor', () => {
    expect(passesRssiFloor({ ...sighting, source: 'ble', rssi: -71 }, -70)).toBe(false);
  });
  it('lets a BLE button at the floor through', () => {
    expect(passesRssiFloor({ ...sighting, source: 'ble', rssi: -70 }, -70)).toBe(true);
  });
  it('applies to a BLE gateway too', () => {
    expect(passesRssiFloor({ ...sighting, source: 'gateway', rssi: -90 }, -70)).toBe(false);
  });
  it('does not apply to MQTT announcements', () => {
    expect(passesRssiFloor({ ...sighting, source: 'mqtt', rssi: -99 }, -70)).toBe(true);
  });
  it('lets a sighting without RSSI through', () => {
    expect(passesRssiFloor({ ...sighting, source: 'zigbee2mqtt' }, -70)).toBe(true);
  });
});

describe('entitlementIsFresh', () => {
  it('reuses a positive answer within the TTL only', () => {
    expect(entitlementIsFresh(now - 299_999, now, 300_000)).toBe(true);
    expect(entitlementIsFresh(now - 300_000, now, 300_000)).toBe(false);
    expect(entitlementIsFresh(undefined, now, 300_000)).toBe(false);
  });
  it('never reuses with a TTL of 0', () => {
    expect(entitlementIsFresh(now, now, 0)).toBe(false);
  });
});

describe('records', () => {
  const linking = linkingRecord({ deviceId: 'A1', customerId: 42, source: 'ble', deviceTypeId: 3, now });
  it('a linking record names the customer, the source and the type', () => {
    expect(linking).toEqual({ deviceId: 'A1', state: 'linking', customerId: 42, source: 'ble', deviceTypeId: 3, updatedAt: new Date(now).toISOString() });
  });
  it('leaves deviceTypeId out when there is none', () => {
    expect('deviceTypeId' in linkingRecord({ deviceId: 'A1', customerId: 42, source: 'ble', deviceTypeId: undefined, now })).toBe(false);
  });
  it('a linked record carries linkId and linkedAt, and drops an old error', () => {
    const linked = linkedRecord({ ...linking, error: 'earlier failure' }, { id: 17, customerId: 42, deviceId: 'A1' }, now + 5);
    expect(linked).toMatchObject({ state: 'linked', linkId: 17, linkedAt: new Date(now + 5).toISOString() });
    expect(linked.error).toBeUndefined();
  });
  it('a 400 is rejected, anything else failed', () => {
    expect(unlinkedRecord(linking, 'rejected', 'bad type', now).state).toBe('rejected');
    expect(unlinkedRecord(linking, 'transient', 'API down', now).state).toBe('failed');
    expect(unlinkedRecord(linking, 'invalid-reply', 'another device', now)).toMatchObject({ state: 'failed', error: 'another device' });
  });
});
