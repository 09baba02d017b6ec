import type { MqttConnection } from '../mqtt/connection.js';
import type { HomeAssistantDiscovery } from '../mqtt/home-assistant.js';
import { createSupervisionPublisher } from '../mqtt/supervision-publisher.js';
import type { PairingEngine } from '../pairing/engine.js';
import type { Supervisor } from '../supervision/supervisor.js';

// Supervision on MQTT: each linked button's availability and supervision
// topics, and Home Assistant's entities for it, follow the supervisor's changes and saves; they
// are published again at every (re)connect, as the link states are, for a broker that lost them.

export type SupervisionFeed = Pick<Supervisor, 'onLiveness' | 'liveness'>;

export function publishSupervision(options: {
  connection: MqttConnection;
  prefix: string;
  engine: Pick<PairingEngine, 'devices' | 'onForget'>;
  supervision: SupervisionFeed;
  homeAssistant: Pick<HomeAssistantDiscovery, 'livenessChanged'> | undefined;
}): void {
  const { connection, engine, supervision, homeAssistant } = options;
  const publisher = createSupervisionPublisher(connection, options.prefix);
  supervision.onLiveness((deviceId, liveness) => {
    if (connection.state() === 'connected') publisher.liveness(deviceId, liveness);
    homeAssistant?.livenessChanged(deviceId, liveness);
  });
  engine.onForget((deviceId) => publisher.forgotten(deviceId));
  connection.onStateChange((state) => {
    if (state !== 'connected') return;
    for (const record of engine.devices()) {
      const liveness = record.state === 'linked' ? supervision.liveness(record.deviceId) : undefined;
      if (liveness !== undefined) publisher.liveness(record.deviceId, liveness);
    }
  });
}
