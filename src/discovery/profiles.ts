import type { Profile } from '../config/profile.js';
import { isValidDeviceId } from '../device-id.js';

// Which button an advertisement or a Zigbee join is, by the configured profiles. This runs for
// every advertisement heard, and nearly all of them are phones and beacons, so the rules are
// prepared once and a report that matches nothing is turned away without allocating.
//
// Semantics: profiles are tried in their configured order and the first whose match fields ALL
// hold wins. A profile taking the `ieeeAddress` is a Zigbee profile (zigbeeModel, zigbeeVendor);
// every other one is a BLE profile (namePrefix, serviceUuid, companyId) and applies to the hub's
// radio, replayed captures and BLE gateways alike.

/** What a BLE source knows of one device; noble's merged advertisement has this shape. */
export interface Advertisement {
  localName?: string;
  /** Lower-case hex; noble writes 16-bit UUIDs without leading zeros (`fcd`, not `0fcd`). */
  serviceUuids?: readonly string[];
  /** `data`, the bytes after the UUID, is read only once a profile matched (BTHome's battery). */
  serviceData?: ReadonlyArray<{ uuid: string; data?: Uint8Array }>;
  /** As advertised: the company id first, little-endian. */
  manufacturerData?: Uint8Array;
}

export interface ZigbeeDefinition {
  model?: string;
  vendor?: string;
}

export type ProfileResult =
  | { ok: true; profile: string; deviceId: string; deviceTypeId?: number }
  /** The profile matched but its deviceId cannot be taken from this device. */
  | { ok: false; profile: string; invalid: string };

interface BleRule {
  profile: Profile;
  namePrefix: string | undefined;
  /** Every spelling of the service UUID a source may report; empty: no service condition. */
  uuids: string[];
  companyId: number | undefined;
}

const BASE_UUID_TAIL = '00001000800000805f9b34fb';

export class ProfileMatcher {
  readonly #ble: BleRule[];
  readonly #zigbee: Profile[];

  constructor(profiles: readonly Profile[]) {
    this.#ble = profiles.filter((p) => p.deviceId.from !== 'ieeeAddress').map(bleRule);
    this.#zigbee = profiles.filter((p) => p.deviceId.from === 'ieeeAddress');
  }

  get hasBleProfiles(): boolean {
    return this.#ble.length > 0;
  }

  get hasZigbeeProfiles(): boolean {
    return this.#zigbee.length > 0;
  }

  /** `address` as the source writes it (noble: lower case); a deviceId taken from it is upper case. */
  advertisement(advertisement: Advertisement, address: string): ProfileResult | undefined {
    const rules = this.#ble;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]!;
      if (rule.namePrefix !== undefined) {
        const name = advertisement.localName;
        if (name === undefined || !name.startsWith(rule.namePrefix)) continue;
      }
      if (rule.companyId !== undefined && companyIdOf(advertisement.manufacturerData) !== rule.companyId) continue;
      if (rule.uuids.length > 0 && !advertisesService(advertisement, rule.uuids)) continue;
      return result(rule.profile, bleDeviceId(rule, advertisement, address));
    }
    return undefined;
  }

  /** A device whose Zigbee2MQTT interview succeeded with this definition. */
  zigbee(definition: ZigbeeDefinition, ieeeAddress: string): ProfileResult | undefined {
    for (const profile of this.#zigbee) {
      const { zigbeeModel, zigbeeVendor } = profile.match;
      if (zigbeeModel !== undefined && definition.model !== zigbeeModel) continue;
      if (zigbeeVendor !== undefined && definition.vendor !== zigbeeVendor) continue;
      return result(profile, isValidDeviceId(ieeeAddress) ? ieeeAddress : { invalid: `IEEE address ${JSON.stringify(ieeeAddress)} is not a valid deviceId` });
    }
    return undefined;
  }
}

function result(profile: Profile, id: string | { invalid: string }): ProfileResult {
  if (typeof id !== 'string') return { ok: false, profile: profile.name, invalid: id.invalid };
  return profile.deviceTypeId === undefined
    ? { ok: true, profile: profile.name, deviceId: id }
    : { ok: true, profile: profile.name, deviceId: id, deviceTypeId: profile.deviceTypeId };
}

function bleRule(profile: Profile): BleRule {
  return {
    profile,
    namePrefix: profile.match.namePrefix,
    uuids: profile.match.serviceUuid === undefined ? [] : uuidSpellings(profile.match.serviceUuid),
    companyId: profile.match.companyId,
  };
}

/**
 * A 16-bit UUID as noble lists it (no leading zeros), padded (service data, gateways), as 32-bit
 * service data, and as the full 128-bit UUID on the Bluetooth base; a 128-bit UUID on the base
 * also in its short forms.
 */
export function uuidSpellings(uuid: string): string[] {
  const short = uuid.length === 32 && uuid.startsWith('0000') && uuid.endsWith(BASE_UUID_TAIL) ? uuid.slice(4, 8) : uuid.length === 4 ? uuid : undefined;
  if (short === undefined) return [uuid];
  const spellings = new Set([short, Number.parseInt(short, 16).toString(16), `0000${short}`, `0000${short}${BASE_UUID_TAIL}`]);
  return [...spellings];
}

function advertisesService(advertisement: Advertisement, uuids: readonly string[]): boolean {
  const listed = advertisement.serviceUuids;
  if (listed !== undefined) {
    for (let i = 0; i < listed.length; i++) if (uuids.includes(listed[i]!)) return true;
  }
  const data = advertisement.serviceData;
  if (data !== undefined) {
    for (let i = 0; i < data.length; i++) if (uuids.includes(data[i]!.uuid)) return true;
  }
  return false;
}

function companyIdOf(data: Uint8Array | undefined): number | undefined {
  if (data === undefined || data.length < 2) return undefined;
  return data[0]! | (data[1]! << 8);
}

function bleDeviceId(rule: BleRule, advertisement: Advertisement, address: string): string | { invalid: string } {
  const source = rule.profile.deviceId;
  switch (source.from) {
    case 'nameSuffix': {
      const name = advertisement.localName ?? '';
      const suffix = name.slice(rule.namePrefix?.length ?? 0);
      return isValidDeviceId(suffix) ? suffix : { invalid: `the name ${JSON.stringify(name)} leaves ${JSON.stringify(suffix)}, not a valid deviceId` };
    }
    case 'address': {
      const id = address.toUpperCase();
      return isValidDeviceId(id) ? id : { invalid: `the address ${JSON.stringify(address)} is not a valid deviceId` };
    }
    case 'manufacturerData': {
      const data = advertisement.manufacturerData;
      const end = source.offset + source.length;
      if (data === undefined || data.length < end) {
        return { invalid: `the manufacturer data holds ${data?.length ?? 0} bytes; the profile takes bytes ${source.offset} to ${end - 1}` };
      }
      return Buffer.from(data.buffer, data.byteOffset + source.offset, source.length).toString('hex').toUpperCase();
    }
    case 'ieeeAddress':
      return { invalid: 'a Zigbee profile does not apply to an advertisement' };
  }
}
