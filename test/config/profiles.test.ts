import { afterAll, describe, expect, it } from 'vitest';
import { configError, Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

const load = (profiles: unknown) => scratch.load({ flags: { config: scratch.config({ profiles }, 'profiles.json') } });
const failure = (profiles: unknown): string => configError(() => load(profiles)).message;

describe('profiles', () => {
  it('replace the default list when given', () => {
    const profiles = load([
      { name: 'tag', match: { serviceUuid: '0000FE59-0000-1000-8000-00805F9B34FB' }, deviceId: { from: 'address' }, deviceTypeId: 7 },
      { name: 'beacon', match: { companyId: '0x004C' }, deviceId: { from: 'manufacturerData', offset: 2, length: 6 } },
      { name: 'zigbee', match: { zigbeeModel: 'SOS-1', zigbeeVendor: 'Acme' }, deviceId: { from: 'ieeeAddress' } },
      { name: 'short', match: { serviceUuid: '180F', namePrefix: 'BTN-' }, deviceId: { from: 'nameSuffix' } },
    ]).profiles;
    expect(profiles).toEqual([
      { name: 'tag', match: { serviceUuid: '0000fe5900001000800000805f9b34fb' }, deviceId: { from: 'address' }, deviceTypeId: 7 },
      { name: 'beacon', match: { companyId: 0x4c }, deviceId: { from: 'manufacturerData', offset: 2, length: 6 } },
      { name: 'zigbee', match: { zigbeeModel: 'SOS-1', zigbeeVendor: 'Acme' }, deviceId: { from: 'ieeeAddress' } },
      { name: 'short', match: { serviceUuid: '180f', namePrefix: 'BTN-' }, deviceId: { from: 'nameSuffix' } },
    ]);
  });

  it('need at least one match field', () => {
    expect(failure([{ name: 'p', match: {}, deviceId: { from: 'address' } }])).toMatch(
      /^profiles\[0\]\.match \(in .*\) must give at least one of namePrefix, serviceUuid, companyId, zigbeeModel, zigbeeVendor$/,
    );
  });

  it('need unique names', () => {
    const p = { name: 'same', match: { namePrefix: 'A' }, deviceId: { from: 'nameSuffix' } };
    expect(failure([p, p])).toMatch(/^profiles\[1\]\.name .* must be unique among the profiles; got "same"$/);
  });

  it('name what is wrong, by path', () => {
    expect(failure([{ name: 'p', match: { serviceUuid: 'xyz' }, deviceId: { from: 'address' } }])).toMatch(
      /^profiles\[0\]\.match\.serviceUuid .* must be a service UUID in hex/,
    );
    expect(failure([{ name: 'p', match: { companyId: 70000 }, deviceId: { from: 'address' } }])).toMatch(
      /^profiles\[0\]\.match\.companyId .* must be a company id from 0 to 65535/,
    );
    expect(failure([{ name: 'p', match: { namePrefix: 'A' }, deviceId: { from: 'serial' } }])).toMatch(
      /^profiles\[0\]\.deviceId\.from .* must be \{"from": X\} where X is nameSuffix, address.*; got "serial"$/,
    );
    expect(failure([{ name: 'p', match: { companyId: 1 }, deviceId: { from: 'manufacturerData', offset: 2 } }])).toMatch(
      /^profiles\[0\]\.deviceId\.length .* must be an integer byte count from 1 to 32/,
    );
    expect(failure([{ name: 'p', match: { companyId: 1 }, deviceId: { from: 'nameSuffix' } }])).toMatch(
      /^profiles\[0\]\.deviceId .* takes the name suffix, so match\.namePrefix is needed/,
    );
    expect(failure([])).toMatch(/^profiles .* must be a non-empty list of profiles/);
    expect(failure({ name: 'p' })).toMatch(/^profiles .* must be a list of profiles/);
  });

  it('refuse unknown keys, naming them', () => {
    expect(failure([{ name: 'p', match: { namePrefx: 'A' }, deviceId: { from: 'address' } }])).toMatch(
      /^profiles\[0\]\.match .* has unknown key "namePrefx"; known keys: namePrefix, /,
    );
  });
});
