import { z } from 'zod';
import { announceTopic } from '../mqtt/topics.js';
import { readCompactAnnouncement } from './compact-announcement.js';
import { readJsonObject, startMqttSource, type MqttSource, type MqttSourceOptions } from './mqtt-source.js';
import { DEVICE_ID_PATTERN } from '../device-id.js';
import type { Sighting } from '../sighting.js';

/** Announcements larger than this are refused unread: a real one is well under 200 bytes. */
export const MAX_ANNOUNCEMENT_BYTES = 4096;

export type AnnouncementResult = Sighting | { invalid: string };

// What an announcement may carry. Other keys are left out of the result (a customer among them: an
// announcement never chooses one), so a hostile payload cannot reach any prototype.
const DEVICE_ID_RULE = { error: 'deviceId must be 1 to 64 characters of A-Z a-z 0-9 . _ : -' };
const announcementSchema = z.object({
  deviceId: z.string(DEVICE_ID_RULE).regex(DEVICE_ID_PATTERN, DEVICE_ID_RULE),
  deviceTypeId: z.int({ error: 'deviceTypeId must be an integer' }).optional(),
  rssi: z.number({ error: 'rssi must be a number from -127 to 20 (dBm)' }).min(-127).max(20).optional(),
  // An announcement whose battery breaks the rule breaks the schema (dropped whole).
  battery: z.int({ error: 'battery must be an integer from 0 to 100 (percent)' }).min(0).max(100).optional(),
});

// The compact form a button sends is read straight from its bytes first (compact-announcement.ts):
// on a busy machine, under a flood, JSON.parse took the daemon's CPU a message from about a bare
// subscriber's to 1.3 to 1.7 times it and the ingest figure below its target; on an idle one it
// made no difference (docs/reference/performance.md).
export function parseAnnouncement(payload: Buffer, at: number): AnnouncementResult {
  const compact = readCompactAnnouncement(payload, at);
  if (compact !== undefined) return compact;
  const read = readJsonObject(payload, MAX_ANNOUNCEMENT_BYTES);
  if ('invalid' in read) return read;
  const parsed = announcementSchema.safeParse(read.object);
  if (!parsed.success) return { invalid: parsed.error.issues[0]?.message ?? 'not an announcement' };
  const { deviceId, deviceTypeId, rssi, battery } = parsed.data;
  const sighting: Sighting = { deviceId, source: 'mqtt', at };
  if (deviceTypeId !== undefined) sighting.deviceTypeId = deviceTypeId;
  if (rssi !== undefined) sighting.rssi = rssi;
  if (battery !== undefined) sighting.battery = battery;
  return sighting;
}

export type AnnounceSourceOptions = Omit<MqttSourceOptions, 'filter' | 'what' | 'read'> & { prefix: string };

export type AnnounceSource = MqttSource;

/** The `<prefix>/announce` topic as a source of sightings. */
export function startAnnounceSource(options: AnnounceSourceOptions): MqttSource {
  return startMqttSource({
    ...options,
    filter: announceTopic(options.prefix),
    what: 'announcement',
    read: (_topic, payload, at) => parseAnnouncement(payload, at),
  });
}
