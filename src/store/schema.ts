// The on-disk form of the pairing store, checked on every load and on every put, so that nothing
// the daemon writes can make the next start refuse the file.
import { z } from 'zod';
import { DEVICE_ID_PATTERN } from '../device-id.js';
import type { DeviceRecord } from './record.js';

// The versions live apart, without zod, so that an update's judge (src/update/) carries them light.
export { READABLE_SCHEMA_VERSIONS, rollbackCopyName, schemaVersionOfText, STORE_MINOR_VERSION, STORE_SCHEMA_VERSION } from './store-versions.js';
import { STORE_SCHEMA_VERSION } from './store-versions.js';

const isoTime = z.iso.datetime({ offset: true });
const integer = z.number().int();

// Strict objects, of the keys this build knows: what it stores is checked against them. A file's
// keys this build does not know are set aside before the check and written back (kept-keys.ts).
export const deviceRecordSchema = z
  .strictObject({
    deviceId: z.string().regex(DEVICE_ID_PATTERN, 'a deviceId is 1 to 64 characters of A-Z a-z 0-9 . _ : -'),
    state: z.enum(['linking', 'linked', 'rejected', 'failed']),
    customerId: integer,
    source: z.string().min(1),
    deviceTypeId: integer.optional(),
    linkId: integer.optional(),
    linkedAt: isoTime.optional(),
    updatedAt: isoTime,
    error: z.string().optional(),
  })
  .check((ctx) => {
    const record = ctx.value;
    if (record.state === 'linked' && (record.linkId === undefined || record.linkedAt === undefined)) {
      ctx.issues.push({
        code: 'custom',
        message: 'a linked device needs its linkId and linkedAt',
        input: record,
        path: [],
      });
    }
  });

/** When a linked button was last heard, as saved (at most 4 times an hour at rest). */
export const heardButtonSchema = z.strictObject({
  lastHeard: isoTime,
  battery: integer.min(0).max(100).optional(),
  batteryLow: z.boolean().optional(),
  /** The deadline learned from its reports, so a restart does not forget it. */
  deadlineSeconds: integer.min(1).optional(),
  /** The sources that heard it (`ble`, `mqtt`, `ble-gateway:<name>`, `zigbee2mqtt`). */
  sources: z.array(z.string().min(1).max(80)).max(16).optional(),
  /** The profile that matched it: its supervisionSeconds and triggerOnly apply before it is heard again. */
  profile: z.string().min(1).max(64).optional(),
  /** A keyed button's last counted BTHome counter (version 3): a report recorded before a restart
   * never counts after it. */
  counter: integer.min(0).max(0xffff_ffff).optional(),
});

export const heardSectionSchema = z.strictObject({
  /** Wall-clock stamp of the save: silence before a restart counts only up to here. */
  savedAt: isoTime,
  devices: z.record(z.string().regex(DEVICE_ID_PATTERN), heardButtonSchema),
});

export type HeardButton = z.infer<typeof heardButtonSchema>;
export type HeardSection = z.infer<typeof heardSectionSchema>;

export const pairingsFileSchema = z
  .strictObject({
    schemaVersion: z.union([z.literal(1), z.literal(2), z.literal(STORE_SCHEMA_VERSION)]),
    minorVersion: integer.min(0).optional(),
    devices: z.array(deviceRecordSchema),
    heard: heardSectionSchema.optional(),
  })
  .check((ctx) => {
    const seen = new Set<string>();
    ctx.value.devices.forEach((device, index) => {
      if (seen.has(device.deviceId)) {
        ctx.issues.push({
          code: 'custom',
          message: `deviceId ${device.deviceId} appears twice`,
          input: device.deviceId,
          path: ['devices', index, 'deviceId'],
        });
      }
      seen.add(device.deviceId);
    });
  });

export type PairingsFile = z.infer<typeof pairingsFileSchema>;

/** A version 1 file has no `heard`, a version 2 file no `counter`: the schema says so, so an old
 * file with one is refused. */
export function versionProblem(file: PairingsFile): string | undefined {
  if (file.schemaVersion === 1 && file.heard !== undefined) return 'heard needs schemaVersion 2';
  if (file.schemaVersion === 2 && Object.values(file.heard?.devices ?? {}).some((button) => button.counter !== undefined)) return 'counter needs schemaVersion 3';
  return undefined;
}

// Compile-time proof that the schema and the hand-written DeviceRecord describe the same shape:
// a field added to one and not the other stops the build here.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const schemaMatchesRecord: Same<z.infer<typeof deviceRecordSchema>, DeviceRecord> = true;
void schemaMatchesRecord;
