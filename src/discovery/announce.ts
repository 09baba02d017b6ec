import { announceTopic } from '../mqtt/topics.js';
import { readCompactAnnouncement } from './compact-announcement.js';
import { readJsonObject, startMqttSource, type MqttSource, type MqttSourceOptions } from './mqtt-source.js';
import { DEVICE_ID_PATTERN, type Sighting } from './sighting.js';

/** Announcements larger than this are refused unread: a real one is well under 200 bytes. */
export const MAX_ANNOUNCEMENT_BYTES = 4096;

export type AnnouncementResult = Sighting | { invalid: string };

// Checked by hand rather than with a zod schema: this runs for every message on the announce
// topic, and the three fields are simple enough to read at a glance. Only the three named fields
// are copied out, so a hostile payload cannot reach any prototype.
export function parseAnnouncement(payload: Buffer, at: number): AnnouncementResult {
  const compact = readCompactAnnouncement(payload, at);
  if (compact !== undefined) return compact;
  const read = readJsonObject(payload, MAX_ANNOUNCEMENT_BYTES);
  if ('invalid' in read) return read;
  const { deviceId, deviceTypeId, rssi } = read.object;
  if (typeof deviceId !== 'string' || !DEVICE_ID_PATTERN.test(deviceId)) {
    return { invalid: 'deviceId must be 1 to 64 characters of A-Z a-z 0-9 . _ : -' };
  }
  if (deviceTypeId !== undefined && !Number.isSafeInteger(deviceTypeId)) {
    return { invalid: 'deviceTypeId must be an integer' };
  }
  if (rssi !== undefined && (typeof rssi !== 'number' || !(rssi >= -127 && rssi <= 20))) {
    return { invalid: 'rssi must be a number from -127 to 20 (dBm)' };
  }
  const sighting: Sighting = { deviceId, source: 'mqtt', at };
  if (deviceTypeId !== undefined) sighting.deviceTypeId = deviceTypeId as number;
  if (rssi !== undefined) sighting.rssi = rssi;
  return sighting;
}

export type AnnounceSourceOptions = Omit<MqttSourceOptions, 'filter' | 'what' | 'read'> & { prefix: string };

export type AnnounceSource = MqttSource;

/** The `<prefix>/announce` topic (CONTRACT.md section 5) as a source of sightings. */
export function startAnnounceSource(options: AnnounceSourceOptions): MqttSource {
  return startMqttSource({
    ...options,
    filter: announceTopic(options.prefix),
    what: 'announcement',
    read: (_topic, payload, at) => parseAnnouncement(payload, at),
  });
}
