import type { Counters } from '../status/counters.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { RateLimitedWarning } from '../log/rate-limited.js';
import type { MqttConnection } from '../mqtt/connection.js';
import type { Sighting } from '../sighting.js';
import { monotonicNow } from '../clock.js';

/** What a source makes of one message: a sighting, why it is invalid, or nothing (not a button). */
export type Reading = Sighting | { invalid: string } | undefined;

export interface MqttSourceOptions {
  connection: MqttConnection;
  filter: string;
  /** The message in words, for the logs: "announcement", "BLE gateway message", ... */
  what: string;
  /** `retained`: sent from the broker's store at subscribing, not as published (see MessageHandler). */
  read(topic: string, payload: Buffer, at: number, retained: boolean): Reading;
  counters: Counters;
  logger: Logger;
  onSighting(sighting: Sighting): void;
  /** The monotonic clock (src/clock.ts), read once a turn of the event loop. */
  now?: () => number;
}

export interface MqttSource {
  /** Ignores further messages and logs any held-back warning summary. */
  stop(): void;
}

// Anyone on the broker can publish, so nothing in a message may stop the daemon: every message is
// counted in `announcements`, invalid ones in `dropped` too and logged at a bounded rate; a
// sighting the engine throws on is counted and logged the same way, and the subscription stays.
export function startMqttSource(options: MqttSourceOptions): MqttSource {
  const { counters, logger, onSighting, read, what } = options;
  const now = options.now ?? oncePerTurn(monotonicNow);
  const invalid = new RateLimitedWarning({ logger, now, summary: (n) => `${n} more invalid ${what}s dropped` });
  const failed = new RateLimitedWarning({ logger, now, summary: (n) => `${n} more ${what}s could not be handled` });
  let running = true;

  options.connection.subscribe(options.filter, (topic, payload, retained) => {
    if (!running) return;
    counters.announcements += 1;
    const reading = read(topic, payload, now(), retained === true);
    if (reading === undefined) return;
    if ('invalid' in reading) {
      counters.dropped += 1;
      invalid.warn({ topic, reason: reading.invalid, bytes: payload.length }, `invalid ${what} dropped`);
      return;
    }
    // The broker's stored copy of an old message says nothing of the button now: supervision must
    // not take it for a report at each (re)connect.
    if (retained === true) reading.retained = true;
    try {
      onSighting(reading);
    } catch (error) {
      counters.dropped += 1;
      failed.warn({ topic, deviceId: reading.deviceId, error: messageOf(error) }, `${article(what)} ${what} could not be handled`);
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

/**
 * `read`, called at most once a turn of the event loop. The messages of one socket read (up to a
 * few thousand under a flood) are handled in one turn and share its time; reading the clock cost
 * as much as the rest of the daemon's work on a message here (about 0.1 us, in a VM).
 */
export function oncePerTurn(read: () => number): () => number {
  let reading: number | undefined;
  const forget = (): void => {
    reading = undefined;
  };
  return () => {
    if (reading === undefined) {
      reading = read();
      setImmediate(forget);
    }
    return reading;
  };
}

/**
 * A message's JSON object, or why it is not one; refused unread past `maxBytes`. JSON.parse
 * defines a `__proto__` key as a plain own property, so a hostile payload reaches no prototype as
 * long as callers copy out only the fields they name.
 */
export function readJsonObject(payload: Buffer, maxBytes: number): { object: Record<string, unknown> } | { invalid: string } {
  if (payload.length > maxBytes) return { invalid: `larger than ${maxBytes} bytes (${payload.length})` };
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return { invalid: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { invalid: 'not a JSON object' };
  return { object: value as Record<string, unknown> };
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}
