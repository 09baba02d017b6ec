import type { Config } from '../config/index.js';
import { startAnnounceSource } from '../discovery/announce.js';
import { startBleGatewaySource } from '../discovery/ble-gateway.js';
import { largestMqttPayload } from '../discovery/payload-limit.js';
import { ProfileMatcher } from '../discovery/profiles.js';
import { startZigbeeSource } from '../discovery/zigbee2mqtt.js';
import type { Sighting } from '../sighting.js';
import { startGatewayWillSource } from '../discovery/source-liveness.js';
import type { SourceLiveness } from '../supervision/types.js';
import { SourceLivenessBoard } from './source-liveness-board.js';
import type { Logger } from '../log/logger.js';
import { RateLimitedWarning } from '../log/rate-limited.js';
import { connectMqtt, type MqttConnection } from '../mqtt/connection.js';
import { startHomeAssistant } from '../mqtt/home-assistant.js';
import { createStatePublisher } from '../mqtt/state-publisher.js';
import { startHealthPublisher } from '../mqtt/health-publisher.js';
import type { HealthReading } from '../mqtt/health.js';
import type { PairingEngine } from '../pairing/engine.js';
import { packageVersion } from '../version.js';
import type { Counters } from '../status/counters.js';
import { refusedHearing, type MqttDetail } from './mqtt-status.js';
import { publishSupervision, type SupervisionFeed } from './mqtt-supervision.js';
import type { DeviceRow } from '../supervision/types.js';

export interface MqttSide {
  state(): 'connecting' | 'connected' | 'disconnected';
  /** Why it is not connected, the protocol spoken, and what the broker refuses: for `status`. */
  detail(): MqttDetail;
  /**
   * Why no button can be heard over MQTT: the broker refuses every subscription a source listens
   * on. Undefined while one of them is granted (or not yet answered).
   */
  deafness(): string | undefined;
  onRefusalChange(listener: () => void): () => void;
  /**
   * Each change of a source's liveness as the broker tells it: a BLE gateway's last will
   * (`ble-gateway:<name>`), Zigbee2MQTT's bridge state (`zigbee2mqtt`). Returns the way to stop.
   */
  onSourceLiveness(listener: (liveness: SourceLiveness) => void): () => void;
  /** The latest known liveness of each source heard from; a source never heard from has none. */
  sourceLiveness(): SourceLiveness[];
  /** Keeps `<prefix>/health` retained from `read` until close. */
  publishHealth(read: () => HealthReading): void;
  close(): Promise<void>;
}

/** The broker connection, the sources on it feeding the engine, and the retained states out. */
export function startMqttSide(options: {
  config: Config;
  engine: PairingEngine;
  counters: Counters;
  logger: Logger;
  /** Where the sources' sightings go: supervision, then the engine. */
  onSighting?: (sighting: Sighting) => void;
  /** Supervision's changes, published, and the rows with their liveness. */
  supervision?: { feed: SupervisionFeed; rows(): DeviceRow[]; row(deviceId: string): DeviceRow | undefined };
}): MqttSide {
  const { config, engine, counters, logger } = options;
  const mqttConfig = config.mqtt;
  if (mqttConfig === undefined) throw new Error('startMqttSide needs PANIC_PAIR_MQTT_URL');
  // A message past the largest any reader takes is invalid whatever its topic: counted and logged
  // at a bounded rate like the readers' own refusals.
  const oversized = new RateLimitedWarning({ logger, summary: (n) => `${n} more oversized MQTT messages dropped` });
  const maxPayloadBytes = largestMqttPayload({ zigbee2mqtt: config.zigbee2mqttPrefix !== undefined });
  const connection = connectMqtt({
    ...mqttConfig,
    prefix: config.mqttPrefix,
    logger,
    maxPayloadBytes,
    onOversized(topic, bytes) {
      counters.announcements += 1;
      counters.dropped += 1;
      oversized.warn({ topic: topic.slice(0, 200), bytes, most: maxPayloadBytes }, 'oversized MQTT message dropped unread');
    },
  });
  const publisher = createStatePublisher(connection, config.mqttPrefix);
  // First of the engine's listeners, though added after supervision's: a button's retained
  // `linked` is what an installer and the home automation wait for, and goes to the broker before
  // its liveness, Home Assistant's entities and the log line are worked out.
  engine.onDevice((record) => publisher.device(record), { first: true });
  engine.onForget((deviceId) => publisher.forgotten(deviceId));
  engine.onEntitlement((state) => publisher.entitlement(state));
  // A broker that restarted without persistence has lost the retained states: publish them all
  // again at every (re)connect, so a subscriber always finds the current ones.
  connection.onStateChange((state) => {
    if (state !== 'connected') return;
    publisher.entitlement(engine.gate.state());
    for (const record of engine.devices()) publisher.device(record);
  });
  // Discovery configs depend on the store, not on states: they change when a button is added or forgotten.
  const homeAssistant =
    config.homeAssistant === undefined
      ? undefined
      : startHomeAssistant({
          connection,
          hub: { prefix: config.mqttPrefix, discoveryPrefix: config.homeAssistant.prefix, version: packageVersion() },
          devices: () => options.supervision?.rows() ?? engine.devices(),
          device: (deviceId) => (options.supervision === undefined ? engine.record(deviceId) : options.supervision.row(deviceId)),
          logger,
        });
  if (homeAssistant !== undefined) {
    engine.onDevice((record) => homeAssistant.deviceChanged(record));
    engine.onForget((deviceId) => homeAssistant.forgotten(deviceId));
  }
  if (options.supervision !== undefined) {
    publishSupervision({ connection, prefix: config.mqttPrefix, engine, supervision: options.supervision.feed, homeAssistant });
  }
  // The filters sources hear buttons on, as opposed to what outputs may subscribe to.
  const hearing = new Set<string>();
  const sourceConnection: MqttConnection = {
    ...connection,
    subscribe(filter, onMessage) {
      hearing.add(filter);
      connection.subscribe(filter, onMessage);
    },
  };
  const onSighting = options.onSighting ?? ((sighting: Sighting): void => engine.sighting(sighting));
  const sources = [startAnnounceSource({ connection: sourceConnection, prefix: config.mqttPrefix, counters, logger, onSighting })];
  // Adapters for what other hub software publishes, each on when its setting is given.
  const matcher = new ProfileMatcher(config.profiles);
  // Liveness topics are subscribed on the plain connection: a source's state is no button heard.
  const liveness = new SourceLivenessBoard();
  const onLiveness = (news: SourceLiveness): boolean => liveness.note(news);
  if (config.mqttBleGateways !== undefined) {
    sources.push(startBleGatewaySource({ connection: sourceConnection, filter: config.mqttBleGateways, matcher, counters, logger, onSighting }));
    const wills = startGatewayWillSource({ connection, filter: config.mqttBleGateways, counters, logger, onLiveness });
    if (wills !== undefined) sources.push(wills);
  }
  if (config.zigbee2mqttPrefix !== undefined) {
    sources.push(startZigbeeSource({ connection: sourceConnection, prefix: config.zigbee2mqttPrefix, matcher, counters, logger, onSighting, onLiveness, livenessConnection: connection }));
  }
  const detail = (): MqttDetail => {
    const protocol = connection.protocol();
    const reason = connection.reason();
    return {
      refusals: connection.refusals(),
      ...(mqttConfig.username === undefined ? {} : { username: mqttConfig.username }),
      ...(protocol === undefined ? {} : { protocol }),
      ...(reason === undefined ? {} : { reason }),
    };
  };
  const stops: Array<() => void> = [];
  return {
    state: () => connection.state(),
    detail,
    deafness: () => refusedHearing([...hearing], connection.refusals(), mqttConfig.username),
    onRefusalChange: (listener) => connection.onRefusalChange(listener),
    onSourceLiveness: (listener) => liveness.onChange(listener),
    sourceLiveness: () => liveness.all(),
    publishHealth(read) {
      stops.push(startHealthPublisher({ connection, prefix: config.mqttPrefix, read }));
    },
    close: () => {
      for (const stop of stops) stop();
      for (const source of sources) source.stop();
      homeAssistant?.stop();
      oversized.flush();
      return connection.close();
    },
  };
}
