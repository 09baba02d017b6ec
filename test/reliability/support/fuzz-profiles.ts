import { profilesSchema, type Profile } from '../../../src/config/profile.js';

// Profiles of every kind, so that fuzzed advertisements and Zigbee joins reach each way of taking
// a deviceId: the name suffix, the address, manufacturer data bytes and the IEEE address.
export const FUZZ_PROFILES_JSON = [
  { name: 'panic-button', match: { namePrefix: 'PANIC-' }, deviceId: { from: 'nameSuffix' } },
  { name: 'maker', match: { companyId: '0x0059' }, deviceId: { from: 'manufacturerData', offset: 2, length: 6 }, deviceTypeId: 3 },
  { name: 'tag', match: { serviceUuid: 'fcd2' }, deviceId: { from: 'address' } },
  { name: 'zigbee-sos', match: { zigbeeModel: 'SOS-FUZZ' }, deviceId: { from: 'ieeeAddress' }, deviceTypeId: 9 },
];

export const FUZZ_PROFILES: Profile[] = profilesSchema.parse(FUZZ_PROFILES_JSON);
