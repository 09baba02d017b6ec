import type { Config } from '../config/index.js';
import { startAnnounceSource } from '../discovery/announce.js';
import { startBleGatewaySource } from '../discovery/ble-gateway.js';
import { ProfileMatcher } from '../discovery/profiles.js';
import { startZigbeeSource } from '../discovery/zigbee2mqtt.js';
import type { Sighting } from '../discovery/sighting.js';
import type { Logger } from '../log/logger.js';
import { connectMqtt } from '../mqtt/connection.js';
import { startHomeAssistant } from '../mqtt/home-assistant.js';
import { createStatePublisher } from '../mqtt/state-publisher.js';
import type { PairingEngine } from '../pairing/engine.js';
import { packageVersion } from '../version.js';
import type { Counters } from './counters.js';

export interface MqttSide {
  state(): 'connecting' | 'connected' | 'disconnected';
  close(): Promise<void>;
}

/** The broker connection, the sources on it feeding the engine, and the retained states out. */
export function startMqttSide(options: { config: Config; engine: PairingEngine; counters: Counters; logger: Logger }): MqttSide {
  const { config, engine, counters, logger } = options;
  const mqttConfig = config.mqtt;
  if (mqttConfig === undefined) throw new Error('startMqttSide needs PANIC_PAIR_MQTT_URL');
  const connection = connectMqtt({ ...mqttConfig, prefix: config.mqttPrefix, logger });
  const publisher = createStatePublisher(connection, config.mqttPrefix);
  engine.onDevice((record) => publisher.device(record));
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
          devices: () => engine.devices(),
          logger,
        });
  if (homeAssistant !== undefined) {
    engine.onDevice((record) => homeAssistant.deviceChanged(record));
    engine.onForget((deviceId) => homeAssistant.forgotten(deviceId));
  }
  const onSighting = (sighting: Sighting): void => engine.sighting(sighting);
  const sources = [startAnnounceSource({ connection, prefix: config.mqttPrefix, counters, logger, onSighting })];
  // Adapters for what other hub software publishes, each on when its setting is given.
  const matcher = new ProfileMatcher(config.profiles);
  if (config.mqttBleGateways !== undefined) {
    sources.push(startBleGatewaySource({ connection, filter: config.mqttBleGateways, matcher, counters, logger, onSighting }));
  }
  if (config.zigbee2mqttPrefix !== undefined) {
    sources.push(startZigbeeSource({ connection, prefix: config.zigbee2mqttPrefix, matcher, counters, logger, onSighting }));
  }
  return {
    state: () => connection.state(),
    close: () => {
      for (const source of sources) source.stop();
      homeAssistant?.stop();
      return connection.close();
    },
  };
}
