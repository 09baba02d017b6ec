// Profiles: how a button is recognised (in an advertisement or a Zigbee join) and where its
// deviceId comes from. Other hardware is supported by adding a profile to the config file.
import { z } from 'zod';
import { integer, must, text } from './fields.js';

export type DeviceIdSource =
  | { from: 'nameSuffix' }
  | { from: 'address' }
  /** Bytes of the manufacturer-specific data as advertised (its first two are the company id). */
  | { from: 'manufacturerData'; offset: number; length: number }
  | { from: 'ieeeAddress' };

export interface ProfileMatch {
  namePrefix?: string;
  /** 4 or 32 lower-case hex digits, no dashes, as noble reports service UUIDs. */
  serviceUuid?: string;
  companyId?: number;
  zigbeeModel?: string;
  zigbeeVendor?: string;
}

export interface Profile {
  name: string;
  match: ProfileMatch;
  deviceId: DeviceIdSource;
  deviceTypeId?: number;
  /** The silence after which a button is missing (else learned from its own reports). */
  supervisionSeconds?: number;
  /** It transmits only when pressed: silence says nothing, so it is unsupervised. */
  triggerOnly?: boolean;
  /** A button of this profile is never linked without its key. */
  keyRequired?: boolean;
}

export const DEFAULT_PROFILE: Readonly<Profile> = Object.freeze({
  name: 'panic-button',
  match: Object.freeze({ namePrefix: 'PANIC-' }),
  deviceId: Object.freeze({ from: 'nameSuffix' as const }),
});

export function defaultProfiles(): Profile[] {
  return [structuredClone(DEFAULT_PROFILE)];
}

// An unknown key is a typo the installer must hear about, not a setting silently ignored.
function strict<T extends z.core.$ZodLooseShape>(shape: T) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `has unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}; known keys: ${known}`
        : 'must be a JSON object',
  });
}

const serviceUuid = z
  .string(must('a service UUID in hex, 16-bit (180f) or 128-bit'))
  .transform((value) => value.trim().toLowerCase().replace(/^0x/, '').replaceAll('-', ''))
  .pipe(z.string().regex(/^(?:[0-9a-f]{4}|[0-9a-f]{32})$/, must('a service UUID in hex, 16-bit (180f) or 128-bit')));

// Company ids are written in hex in the Bluetooth assigned numbers, so "0x004C" is accepted too.
const companyId = z.preprocess(
  (value) => (typeof value === 'string' && /^0x[0-9a-f]{1,4}$/i.test(value.trim()) ? Number(value.trim()) : value),
  z.number(must('a company id from 0 to 65535 (0xffff)')).int().min(0).max(0xffff, must('a company id from 0 to 65535')),
);

const MATCH_FIELDS = ['namePrefix', 'serviceUuid', 'companyId', 'zigbeeModel', 'zigbeeVendor'] as const;

const match = strict({
  namePrefix: text('a non-empty name prefix, e.g. PANIC-').optional(),
  serviceUuid: serviceUuid.optional(),
  companyId: companyId.optional(),
  zigbeeModel: text('a non-empty Zigbee model id').optional(),
  zigbeeVendor: text('a non-empty Zigbee vendor').optional(),
}).refine((m) => MATCH_FIELDS.some((field) => m[field] !== undefined), {
  error: `must give at least one of ${MATCH_FIELDS.join(', ')}`,
});

const deviceId = z.discriminatedUnion(
  'from',
  [
    strict({ from: z.literal('nameSuffix') }),
    strict({ from: z.literal('address') }),
    strict({
      from: z.literal('manufacturerData'),
      offset: integer('an integer byte offset from 0 to 255', 0, 255),
      length: integer('an integer byte count from 1 to 32', 1, 32),
    }),
    strict({ from: z.literal('ieeeAddress') }),
  ],
  must('{"from": X} where X is nameSuffix, address, manufacturerData (with offset and length) or ieeeAddress'),
);

export const profileSchema = strict({
  name: z
    .string(must('a name of 1 to 64 characters of A-Z a-z 0-9 . _ -'))
    .regex(/^[A-Za-z0-9._-]{1,64}$/, must('a name of 1 to 64 characters of A-Z a-z 0-9 . _ -')),
  match,
  deviceId,
  deviceTypeId: integer('an integer, the deviceTypeId of buttons of this profile').optional(),
  supervisionSeconds: integer('an integer number of seconds from 60 to 604800, how long a button of this profile may be silent before it is missing', 60, 604_800).optional(),
  triggerOnly: z.boolean(must('true or false: true when the button transmits only when pressed (it cannot be supervised)')).optional(),
  keyRequired: z.boolean(must('true or false: true when a button of this profile is linked only with its key (encrypted BTHome)')).optional(),
}).superRefine((profile, ctx) => {
  if (profile.deviceId.from === 'nameSuffix' && profile.match.namePrefix === undefined) {
    ctx.addIssue({ code: 'custom', path: ['deviceId'], message: 'takes the name suffix, so match.namePrefix is needed' });
  }
  // A profile is either for Zigbee joins (it takes the IEEE address) or for BLE advertisements;
  // a match field of the other kind could never hold, and the profile would silently match nothing.
  const { namePrefix, serviceUuid, companyId: company, zigbeeModel, zigbeeVendor } = profile.match;
  const zigbee = zigbeeModel !== undefined || zigbeeVendor !== undefined;
  const ble = namePrefix !== undefined || serviceUuid !== undefined || company !== undefined;
  if (profile.deviceId.from === 'ieeeAddress' && (ble || !zigbee)) {
    ctx.addIssue({ code: 'custom', path: ['match'], message: 'takes a Zigbee IEEE address, so it matches by zigbeeModel or zigbeeVendor only (no namePrefix, serviceUuid or companyId)' });
  }
  if (profile.triggerOnly === true && profile.supervisionSeconds !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['supervisionSeconds'], message: 'cannot go with triggerOnly: a button that sends only when pressed has no deadline' });
  }
  if (profile.deviceId.from !== 'ieeeAddress' && zigbee) {
    ctx.addIssue({ code: 'custom', path: ['match'], message: 'zigbeeModel and zigbeeVendor apply only to a profile whose deviceId is {"from": "ieeeAddress"}' });
  }
});

export const profilesSchema = z
  .array(profileSchema, must('a list of profiles'))
  .min(1, must('a non-empty list of profiles (leave it out for the default panic-button profile)'))
  .superRefine((profiles, ctx) => {
    const seen = new Set<string>();
    for (const [index, profile] of profiles.entries()) {
      if (seen.has(profile.name)) {
        ctx.addIssue({ code: 'custom', path: [index, 'name'], message: 'must be unique among the profiles' });
      }
      seen.add(profile.name);
    }
  });
