import type { Counters } from '../daemon/counters.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { RateLimitedWarning } from '../log/rate-limited.js';
import type { MqttConnection } from '../mqtt/connection.js';
import type { ProfileMatcher, ZigbeeDefinition } from './profiles.js';
import type { Sighting } from './sighting.js';

// Zigbee2MQTT's bridge events (`<base>/bridge/event`): a button that joined the Zigbee network
// and whose interview succeeded is a sighting when its definition (model, vendor) matches a Zigbee
// profile; its IEEE address (`0x00124b00088ccd58`) is the deviceId and `zigbee2mqtt` the source.
// Every other event (joined, announce, leave, an interview started or failed) is heard and ignored.

export const ZIGBEE_SOURCE = 'zigbee2mqtt';
export const MAX_BRIDGE_EVENT_BYTES = 64 * 1024;

export type BridgeEvent =
  | { joined: { ieeeAddress: string; definition: ZigbeeDefinition } }
  | { ignored: string }
  | { invalid: string };

const IEEE_ADDRESS = /^0x[0-9a-f]{16}$/i;

export function bridgeEventTopic(prefix: string): string {
  return `${prefix}/bridge/event`;
}

/** A bridge event read: only an interview that succeeded counts. */
export function parseBridgeEvent(payload: Buffer): BridgeEvent {
  // A successful interview carries the device's `exposes`; large, but far below this.
  if (payload.length > MAX_BRIDGE_EVENT_BYTES) return { invalid: `larger than ${MAX_BRIDGE_EVENT_BYTES} bytes (${payload.length})` };
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return { invalid: 'not JSON' };
  }
  if (!isObject(value)) return { invalid: 'not a JSON object' };
  const { type, data } = value;
  if (typeof type !== 'string') return { invalid: 'type must be a string' };
  if (!isObject(data)) return { invalid: 'data must be an object' };
  if (type !== 'device_interview') return { ignored: type };
  const { ieee_address: ieeeAddress, status, definition } = data;
  if (typeof ieeeAddress !== 'string' || !IEEE_ADDRESS.test(ieeeAddress)) return { invalid: 'data.ieee_address must be 0x and 16 hex digits' };
  if (typeof status !== 'string') return { invalid: 'data.status must be a string' };
  if (status !== 'successful') return { ignored: `device_interview ${status}` };
  // An unsupported device ends its interview with no definition: nothing to match.
  if (definition === null || definition === undefined) return { ignored: 'device_interview of an unsupported device' };
  if (!isObject(definition)) return { invalid: 'data.definition must be an object' };
  const { model, vendor } = definition;
  if ((model !== undefined && model !== null && typeof model !== 'string') || (vendor !== undefined && vendor !== null && typeof vendor !== 'string')) {
    return { invalid: 'data.definition.model and vendor must be strings' };
  }
  const found: ZigbeeDefinition = {};
  if (typeof model === 'string') found.model = model;
  if (typeof vendor === 'string') found.vendor = vendor;
  // Zigbee2MQTT writes it in lower case; one spelling keeps one device one deviceId.
  return { joined: { ieeeAddress: ieeeAddress.toLowerCase(), definition: found } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ZigbeeSourceOptions {
  connection: MqttConnection;
  /** PANIC_PAIR_ZIGBEE2MQTT_PREFIX, e.g. `zigbee2mqtt`. */
  prefix: string;
  matcher: ProfileMatcher;
  counters: Counters;
  logger: Logger;
  onSighting(sighting: Sighting): void;
  now?: () => number;
}

export interface ZigbeeSource {
  stop(): void;
}

export function startZigbeeSource(options: ZigbeeSourceOptions): ZigbeeSource {
  const { matcher, counters, logger, onSighting } = options;
  const now = options.now ?? Date.now;
  const invalid = new RateLimitedWarning({ logger, now, summary: (n) => `${n} more invalid Zigbee2MQTT bridge events dropped` });
  let running = true;

  options.connection.subscribe(bridgeEventTopic(options.prefix), (topic, payload) => {
    if (!running) return;
    counters.announcements += 1;
    const event = parseBridgeEvent(payload);
    if ('invalid' in event) {
      counters.dropped += 1;
      invalid.warn({ topic, reason: event.invalid, bytes: payload.length }, 'invalid Zigbee2MQTT bridge event dropped');
      return;
    }
    if ('ignored' in event) return;
    const { ieeeAddress, definition } = event.joined;
    const match = matcher.zigbee(definition, ieeeAddress);
    if (match === undefined) {
      logger.debug({ ieeeAddress, ...definition }, 'a Zigbee device joined that no profile matches');
      return;
    }
    if (!match.ok) {
      counters.dropped += 1;
      invalid.warn({ topic, profile: match.profile, reason: match.invalid }, 'Zigbee device matches a profile but has no usable deviceId');
      return;
    }
    logger.info({ deviceId: match.deviceId, profile: match.profile, ...definition }, 'a Zigbee button joined');
    const sighting: Sighting = { deviceId: match.deviceId, source: ZIGBEE_SOURCE, at: now() };
    if (match.deviceTypeId !== undefined) sighting.deviceTypeId = match.deviceTypeId;
    try {
      onSighting(sighting);
    } catch (error) {
      counters.dropped += 1;
      invalid.warn({ topic, deviceId: sighting.deviceId, error: messageOf(error) }, 'a Zigbee sighting could not be handled');
    }
  });

  return {
    stop() {
      running = false;
      invalid.flush();
    },
  };
}
