import { readJsonObject, startMqttSource, type MqttSource, type MqttSourceOptions, type Reading } from './mqtt-source.js';
import type { ProfileMatcher, ZigbeeDefinition } from './profiles.js';
import type { Sighting } from '../sighting.js';
import type { SourceLiveness } from '../supervision/types.js';
import type { MqttConnection } from '../mqtt/connection.js';
import { startZigbeeButtonSource } from './zigbee-buttons.js';
import { readBridgeState } from './zigbee-devices.js';

// Zigbee2MQTT's bridge events (`<base>/bridge/event`): a button that joined the Zigbee network
// and whose interview succeeded is a sighting when its definition (model, vendor) matches a Zigbee
// profile; its IEEE address (`0x00124b00088ccd58`) is the deviceId and `zigbee2mqtt` the source.
// Every other event (joined, announce, leave, an interview started or failed) is heard and ignored.
// A known button's own reports are sightings too (zigbee-buttons.ts), and the bridge's state
// (`<base>/bridge/state`) is the source's liveness, for supervision.

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
  const read = readJsonObject(payload, MAX_BRIDGE_EVENT_BYTES);
  if ('invalid' in read) return read;
  const { type, data } = read.object;
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

export type ZigbeeSourceOptions = Omit<MqttSourceOptions, 'filter' | 'what' | 'read'> & {
  /** PANIC_PAIR_ZIGBEE2MQTT_PREFIX, e.g. `zigbee2mqtt`. */
  prefix: string;
  matcher: ProfileMatcher;
  /** The bridge's own state (`<base>/bridge/state`), as the source `zigbee2mqtt`. */
  onLiveness?(liveness: SourceLiveness): void;
  /** Where the bridge state is subscribed, when not on `connection`: a source's state is no button heard. */
  livenessConnection?: MqttConnection;
};

/**
 * Zigbee2MQTT as a source of sightings, through the Zigbee profiles: a button whose interview
 * succeeded, and each report a known button sends afterwards (zigbee-buttons.ts); and the
 * bridge's state, for supervision.
 */
export function startZigbeeSource(options: ZigbeeSourceOptions): MqttSource {
  const sources = [startInterviewSource(options), startZigbeeButtonSource({ ...options, source: ZIGBEE_SOURCE })];
  const { onLiveness } = options;
  if (onLiveness !== undefined) {
    sources.push(
      startMqttSource({
        ...options,
        connection: options.livenessConnection ?? options.connection,
        filter: `${options.prefix}/bridge/state`,
        what: 'Zigbee2MQTT bridge state',
        read: (_topic, payload) => {
          if (payload.length === 0) return undefined;
          const up = readBridgeState(payload);
          if (typeof up !== 'boolean') return up;
          onLiveness({ source: ZIGBEE_SOURCE, up });
          return undefined;
        },
      }),
    );
  }
  return {
    stop() {
      for (const source of sources) source.stop();
    },
  };
}

function startInterviewSource(options: ZigbeeSourceOptions): MqttSource {
  const { matcher, logger } = options;
  const read = (_topic: string, payload: Buffer, at: number): Reading => {
    const event = parseBridgeEvent(payload);
    if ('invalid' in event) return event;
    if ('ignored' in event) return undefined;
    const { ieeeAddress, definition } = event.joined;
    const match = matcher.zigbee(definition, ieeeAddress);
    if (match === undefined) {
      logger.debug({ ieeeAddress, ...definition }, 'a Zigbee device joined that no profile matches');
      return undefined;
    }
    if (!match.ok) return { invalid: `matches profile ${match.profile} but has no usable deviceId: ${match.invalid}` };
    logger.info({ deviceId: match.deviceId, profile: match.profile, ...definition }, 'a Zigbee button joined');
    const sighting: Sighting = { deviceId: match.deviceId, source: ZIGBEE_SOURCE, at, profile: match.profile };
    if (match.deviceTypeId !== undefined) sighting.deviceTypeId = match.deviceTypeId;
    return sighting;
  };
  return startMqttSource({ ...options, filter: bridgeEventTopic(options.prefix), what: 'Zigbee2MQTT bridge event', read });
}
