// The on-disk form of the pairing store, checked on every load and on every put, so that nothing
// the daemon writes can make the next start refuse the file.
import { z } from 'zod';
import { DEVICE_ID_PATTERN } from '../discovery/sighting.js';
import type { DeviceRecord } from './record.js';

/** The only schemaVersion this build reads and writes. A newer file is refused, never rewritten. */
export const STORE_SCHEMA_VERSION = 1;

const isoTime = z.iso.datetime({ offset: true });
const integer = z.number().int();

// Strict objects: a key this version does not know would be dropped by the next rewrite, so a
// file holding one is refused rather than silently thinned.
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

export const pairingsFileSchema = z
  .strictObject({
    schemaVersion: z.literal(STORE_SCHEMA_VERSION),
    devices: z.array(deviceRecordSchema),
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

// Compile-time proof that the schema and the hand-written DeviceRecord describe the same shape:
// a field added to one and not the other stops the build here.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const schemaMatchesRecord: Same<z.infer<typeof deviceRecordSchema>, DeviceRecord> = true;
void schemaMatchesRecord;
