import type { Counters } from '../daemon/counters.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { RateLimitedWarning } from '../log/rate-limited.js';
import type { MqttConnection } from '../mqtt/connection.js';
import { announceTopic } from '../mqtt/topics.js';
import { DEVICE_ID_PATTERN, type Sighting } from './sighting.js';

/** Announcements larger than this are refused unread: a real one is well under 200 bytes. */
export const MAX_ANNOUNCEMENT_BYTES = 4096;

export type AnnouncementResult = Sighting | { invalid: string };

// Checked by hand rather than with a zod schema: this runs for every message on the announce
// topic, and the three fields are simple enough to read at a glance. JSON.parse defines a
// `__proto__` key as a plain own property, and only the three named fields are copied out, so a
// hostile payload cannot reach any prototype.
export function parseAnnouncement(payload: Buffer, at: number): AnnouncementResult {
  if (payload.length > MAX_ANNOUNCEMENT_BYTES) {
    return { invalid: `larger than ${MAX_ANNOUNCEMENT_BYTES} bytes (${payload.length})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return { invalid: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { invalid: 'not a JSON object' };
  }
  const { deviceId, deviceTypeId, rssi } = value as Record<string, unknown>;
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

export interface AnnounceSourceOptions {
  connection: MqttConnection;
  prefix: string;
  counters: Counters;
  logger: Logger;
  onSighting(sighting: Sighting): void;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

export interface AnnounceSource {
  /** Ignores further announcements and logs any held-back warning summary. */
  stop(): void;
}

// Anyone on the broker can publish here, so nothing in a message may stop the daemon: invalid
// ones are counted in `dropped` and logged at a bounded rate; a sighting the engine throws on is
// counted and logged the same way, and the subscription stays.
export function startAnnounceSource(options: AnnounceSourceOptions): AnnounceSource {
  const { counters, logger, onSighting } = options;
  const now = options.now ?? Date.now;
  const invalid = new RateLimitedWarning({ logger, now, summary: (n) => `${n} more invalid announcements dropped` });
  const failed = new RateLimitedWarning({ logger, now, summary: (n) => `${n} more announcements could not be handled` });
  let running = true;

  options.connection.subscribe(announceTopic(options.prefix), (topic, payload) => {
    if (!running) return;
    counters.announcements += 1;
    const result = parseAnnouncement(payload, now());
    if ('invalid' in result) {
      counters.dropped += 1;
      invalid.warn({ topic, reason: result.invalid, bytes: payload.length }, 'invalid announcement dropped');
      return;
    }
    try {
      onSighting(result);
    } catch (error) {
      counters.dropped += 1;
      failed.warn({ topic, deviceId: result.deviceId, error: messageOf(error) }, 'an announcement could not be handled');
    }
  });

  return {
    stop() {
      running = false;
      invalid.flush();
      failed.flush();
    },
  };
}
