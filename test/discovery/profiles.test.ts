import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, type Profile } from '../../src/config/profile.js';
import { profilesSchema } from '../../src/config/profile.js';
import { ProfileMatcher, uuidSpellings, type Advertisement } from '../../src/discovery/profiles.js';

// The profile matching table: which advertisement or Zigbee join is which button.

const profiles = profilesSchema.parse([
  DEFAULT_PROFILE,
  { name: 'tag', match: { serviceUuid: '0FCD' }, deviceId: { from: 'address' }, deviceTypeId: 7 },
  { name: 'nordic', match: { companyId: '0x0059' }, deviceId: { from: 'manufacturerData', offset: 2, length: 4 }, deviceTypeId: 9 },
  { name: 'both', match: { namePrefix: 'SOS', companyId: 0x0171 }, deviceId: { from: 'nameSuffix' } },
  { name: 'full-uuid', match: { serviceUuid: '6e400001-b5a3-f393-e0a9-e50e24dcca9e' }, deviceId: { from: 'address' } },
  { name: 'zigbee-sos', match: { zigbeeModel: 'SOS-1', zigbeeVendor: 'Acme' }, deviceId: { from: 'ieeeAddress' }, deviceTypeId: 3 },
  { name: 'zigbee-any-heiman', match: { zigbeeVendor: 'HEIMAN' }, deviceId: { from: 'ieeeAddress' } },
]) as Profile[];
const matcher = new ProfileMatcher(profiles);
const ADDRESS = 'c4:64:9f:5e:94:54';
const mfr = (hex: string): Buffer => Buffer.from(hex, 'hex');

describe('advertisements', () => {
  it.each<[string, Advertisement, string, unknown]>([
    ['the default profile: the name after PANIC-', { localName: 'PANIC-7F3A9C' }, ADDRESS, { ok: true, profile: 'panic-button', deviceId: '7F3A9C' }],
    ['a name that only starts alike is not a button', { localName: 'PANIC' }, ADDRESS, undefined],
    ['the prefix is case-sensitive', { localName: 'panic-7F3A9C' }, ADDRESS, undefined],
    ['no name: no match on name', { manufacturerData: mfr('4c000215') }, ADDRESS, undefined],
    ['a phone (Apple manufacturer data) matches nothing', { localName: 'iPhone', manufacturerData: mfr('4c0010060319247bbc68') }, ADDRESS, undefined],
    ['a 16-bit service as noble lists it (no leading zero)', { serviceUuids: ['fcd'] }, ADDRESS, { ok: true, profile: 'tag', deviceId: 'C4:64:9F:5E:94:54', deviceTypeId: 7 }],
    ['the same service as service data (padded)', { serviceData: [{ uuid: '0fcd' }] }, ADDRESS, { ok: true, profile: 'tag', deviceId: 'C4:64:9F:5E:94:54', deviceTypeId: 7 }],
    ['the same service as a full 128-bit UUID', { serviceUuids: ['00000fcd00001000800000805f9b34fb'] }, ADDRESS, { ok: true, profile: 'tag', deviceId: 'C4:64:9F:5E:94:54', deviceTypeId: 7 }],
    ['another service', { serviceUuids: ['180f', 'fe9f'] }, ADDRESS, undefined],
    ['a 128-bit service', { serviceUuids: ['6e400001b5a3f393e0a9e50e24dcca9e'] }, 'AA:BB:CC:00:11:22', { ok: true, profile: 'full-uuid', deviceId: 'AA:BB:CC:00:11:22' }],
    ['company id little-endian, deviceId from a slice', { manufacturerData: mfr('5900a1b2c3d4e5') }, ADDRESS, { ok: true, profile: 'nordic', deviceId: 'A1B2C3D4', deviceTypeId: 9 }],
    ['the company id read big-endian is another company', { manufacturerData: mfr('0059a1b2c3d4') }, ADDRESS, undefined],
    ['too little manufacturer data for the slice: matched, but unusable', { manufacturerData: mfr('5900a1b2') }, ADDRESS, { ok: false, profile: 'nordic', invalid: 'the manufacturer data holds 4 bytes; the profile takes bytes 2 to 5' }],
    ['every match field must hold: name and company', { localName: 'SOS42', manufacturerData: mfr('7101') }, ADDRESS, { ok: true, profile: 'both', deviceId: '42' }],
    ['every match field must hold: the name alone is not enough', { localName: 'SOS42', manufacturerData: mfr('7201') }, ADDRESS, undefined],
    ['the first profile that matches wins', { localName: 'PANIC-AB12', serviceUuids: ['fcd'] }, ADDRESS, { ok: true, profile: 'panic-button', deviceId: 'AB12' }],
    ['a suffix that is no deviceId is matched but unusable', { localName: 'PANIC-a/b' }, ADDRESS, { ok: false, profile: 'panic-button', invalid: 'the name "PANIC-a/b" leaves "a/b", not a valid deviceId' }],
    ['an empty suffix is unusable too', { localName: 'PANIC-' }, ADDRESS, { ok: false, profile: 'panic-button', invalid: 'the name "PANIC-" leaves "", not a valid deviceId' }],
    ['Zigbee profiles never match an advertisement', { localName: 'SOS-1' }, ADDRESS, undefined],
  ])('%s', (_name, advertisement, address, expected) => {
    expect(matcher.advertisement(advertisement, address)).toEqual(expected);
  });

  it('finds no button in an empty advertisement, and with no profile of BLE at all', () => {
    expect(matcher.advertisement({}, ADDRESS)).toBeUndefined();
    const zigbeeOnly = new ProfileMatcher(profiles.filter((p) => p.deviceId.from === 'ieeeAddress'));
    expect(zigbeeOnly.hasBleProfiles).toBe(false);
    expect(zigbeeOnly.advertisement({ localName: 'PANIC-1' }, ADDRESS)).toBeUndefined();
  });

  it('spells a 16-bit UUID every way a source writes it', () => {
    expect(uuidSpellings('0fcd').sort()).toEqual(['00000fcd', '00000fcd00001000800000805f9b34fb', '0fcd', 'fcd']);
    expect(uuidSpellings('0000180f00001000800000805f9b34fb')).toContain('180f');
    expect(uuidSpellings('6e400001b5a3f393e0a9e50e24dcca9e')).toEqual(['6e400001b5a3f393e0a9e50e24dcca9e']);
  });
});

describe('Zigbee joins', () => {
  const IEEE = '0x00124b00088ccd58';
  it.each<[string, { model?: string; vendor?: string }, unknown]>([
    ['model and vendor both match', { model: 'SOS-1', vendor: 'Acme' }, { ok: true, profile: 'zigbee-sos', deviceId: IEEE, deviceTypeId: 3 }],
    ['the model alone is not enough when the profile names a vendor', { model: 'SOS-1', vendor: 'Other' }, undefined],
    ['a vendor-only profile takes any model of that vendor', { model: 'HS1EB', vendor: 'HEIMAN' }, { ok: true, profile: 'zigbee-any-heiman', deviceId: IEEE }],
    ['matching is exact', { model: 'sos-1', vendor: 'acme' }, undefined],
    ['a light bulb matches nothing', { model: 'LED1545G12', vendor: 'IKEA' }, undefined],
  ])('%s', (_name, definition, expected) => {
    expect(matcher.zigbee(definition, IEEE)).toEqual(expected);
  });
});

describe('profile kinds in the configuration', () => {
  const problem = (profile: unknown): string | undefined => {
    const result = profilesSchema.safeParse([profile]);
    return result.success ? undefined : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  };

  it('refuses a Zigbee profile with BLE match fields, or without Zigbee ones', () => {
    expect(problem({ name: 'z', match: { zigbeeModel: 'A', namePrefix: 'X' }, deviceId: { from: 'ieeeAddress' } })).toMatch(/^0\.match: takes a Zigbee IEEE address/);
    expect(problem({ name: 'z', match: { companyId: 1 }, deviceId: { from: 'ieeeAddress' } })).toMatch(/^0\.match: takes a Zigbee IEEE address/);
  });

  it('refuses Zigbee match fields on a BLE profile', () => {
    expect(problem({ name: 'b', match: { zigbeeModel: 'A' }, deviceId: { from: 'address' } })).toMatch(/^0\.match: zigbeeModel and zigbeeVendor apply only/);
  });

  it('accepts each kind on its own', () => {
    expect(problem({ name: 'z', match: { zigbeeVendor: 'A' }, deviceId: { from: 'ieeeAddress' } })).toBeUndefined();
    expect(problem({ name: 'b', match: { serviceUuid: '180f' }, deviceId: { from: 'address' } })).toBeUndefined();
  });
});
