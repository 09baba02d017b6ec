import type { Config } from '../config/index.js';
import { startAnnounceSource } from '../discovery/announce.js';
import type { Logger } from '../log/logger.js';
import { connectMqtt } from '../mqtt/connection.js';
import { createStatePublisher } from '../mqtt/state-publisher.js';
import type { PairingEngine } from '../pairing/engine.js';
import type { Counters } from './counters.js';

export interface MqttSide {
  state(): 'connecting' | 'connected' | 'disconnected';
  close(): Promise<void>;
}

/** The broker connection, the announce source feeding the engine, and the retained states out. */
export function startMqttSide(options: { config: Config; engine: PairingEngine; counters: Counters; logger: Logger }): MqttSide {
  const { config, engine, counters, logger } = options;
  const mqttConfig = config.mqtt;
  if (mqttConfig === undefined) throw new Error('startMqttSide needs PANIC_PAIR_MQTT_URL');
  const connection = connectMqtt({ ...mqttConfig, prefix: config.mqttPrefix, logger });
  const publisher = createStatePublisher(connection, config.mqttPrefix);
  engine.onDevice((record) => publisher.device(record));
  engine.onEntitlement((state) => publisher.entitlement(state));
  startAnnounceSource({
    connection,
    prefix: config.mqttPrefix,
    counters,
    logger,
    onSighting: (sighting) => engine.sighting(sighting),
  });
  return { state: () => connection.state(), close: () => connection.close() };
}
