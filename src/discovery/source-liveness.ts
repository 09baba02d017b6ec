import type { SourceLiveness } from '../supervision/types.js';
import { GATEWAY_SOURCE_PREFIX, gatewayNameOfWill } from './ble-gateway.js';
import { startMqttSource, type MqttSource, type MqttSourceOptions } from './mqtt-source.js';

// Whether the software that hears buttons for the hub is up, as it tells the broker: a BLE
// gateway's last will (Theengs Gateway, OpenMQTTGateway: `<base>/<gateway>/LWT`, `online` or
// `offline`) and Zigbee2MQTT's `<base>/bridge/state`. Supervision reads
// it so that a button only a dead gateway could hear is `unknown`, never `missing`.

/** `online` or `offline`, any case, blanks around: the words both gateways and old Zigbee2MQTT send. */
export function readLivenessWord(payload: Buffer): boolean | { invalid: string } {
  if (payload.length > 64) return { invalid: `longer than 64 bytes (${payload.length}): not online or offline` };
  const word = payload.toString('utf8').trim().toLowerCase();
  if (word === 'online') return true;
  if (word === 'offline') return false;
  return { invalid: 'neither online nor offline' };
}

/**
 * The gateways' last-will filter from their report filter: the levels before `BTtoMQTT`, then
 * `LWT` (`home/+/BTtoMQTT/+` gives `home/+/LWT`). Undefined when the filter names no `BTtoMQTT`
 * level after a gateway's: then there is no telling where the wills are.
 */
export function gatewayWillFilter(reportFilter: string): string | undefined {
  const levels = reportFilter.split('/');
  const at = levels.indexOf('BTtoMQTT');
  if (at <= 0) return undefined;
  return [...levels.slice(0, at), 'LWT'].join('/');
}

export type GatewayWillOptions = Omit<MqttSourceOptions, 'filter' | 'what' | 'read' | 'onSighting'> & {
  /** PANIC_PAIR_MQTT_BLE_GATEWAYS, the reports' filter. */
  filter: string;
  /** False: not kept (too many sources known), and the message is counted as dropped. */
  onLiveness(liveness: SourceLiveness): boolean | void;
};

/** The gateways' last wills, each as its gateway's liveness; undefined when none can be derived. */
export function startGatewayWillSource(options: GatewayWillOptions): MqttSource | undefined {
  const filter = gatewayWillFilter(options.filter);
  if (filter === undefined) return undefined;
  return startMqttSource({
    ...options,
    filter,
    what: 'BLE gateway last will',
    onSighting: () => undefined,
    read: (topic, payload) => {
      // An empty payload clears a retained will: it says nothing of the gateway.
      if (payload.length === 0) return undefined;
      const up = readLivenessWord(payload);
      if (typeof up !== 'boolean') return up;
      const kept = options.onLiveness({ source: `${GATEWAY_SOURCE_PREFIX}:${gatewayNameOfWill(topic)}`, up });
      return kept === false ? { invalid: 'a last will from one gateway too many (the hub keeps 256)' } : undefined;
    },
  });
}
