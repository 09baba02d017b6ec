import { randomBytes } from 'node:crypto';
import type { IClientOptions, MqttClient } from 'mqtt';
import { PanicPairError } from '../errors.js';
import { brokerAddress } from '../mqtt/broker-address.js';
import { isRefusal, reasonWords, subackCode } from '../mqtt/broker-answers.js';
import { centralFailure } from './central-failure.js';
import type { CentralSettings } from './central-input.js';
import { MAX_HEALTH_BYTES } from './hub-health.js';

// `fleet`'s MQTT connection to the central broker: MQTT 5 (3.1.1 where the broker refuses 5, or
// the one version --central-protocol names), a client id of its own, nothing retained and no will.
// A connection or subscription refused is a PanicPairError naming the flag to change (exit 2).

/** How long the first connection may take. */
export const CONNECT_TIMEOUT_MS = 10_000;
/**
 * Advertised to the broker (MQTT 5): it sends this reader nothing larger, so a hostile huge
 * retained message costs no memory here (the hub's row then says it has no health). A payload
 * between MAX_HEALTH_BYTES and this arrives and is shown as unreadable, its size named.
 */
export const MAX_PACKET_BYTES = 4 * MAX_HEALTH_BYTES;

export interface CentralConnection {
  client: MqttClient;
  clientId: string;
  protocolVersion: 4 | 5;
}

/** CONNACK codes that refuse the protocol version: 3.1.1's 1, MQTT 5's 0x84. */
const VERSION_REFUSED = new Set<unknown>([1, 0x84]);

export async function connectCentral(settings: CentralSettings): Promise<CentralConnection> {
  const clientId = `panic-pair-fleet-${randomBytes(4).toString('hex')}`;
  if (settings.protocolVersion !== undefined) {
    const only = await attempt(settings, clientId, settings.protocolVersion);
    if ('client' in only) return only;
    throw centralFailure(only.error, settings);
  }
  const five = await attempt(settings, clientId, 5);
  if ('client' in five) return five;
  if (!VERSION_REFUSED.has((five.error as { code?: unknown } | undefined)?.code)) throw centralFailure(five.error, settings);
  const four = await attempt(settings, clientId, 4);
  if ('client' in four) return four;
  throw centralFailure(four.error, settings);
}

async function attempt(settings: CentralSettings, clientId: string, protocolVersion: 4 | 5): Promise<CentralConnection | { error?: Error }> {
  const { connect } = await import('../mqtt/library.js');
  const options: IClientOptions = {
    ...brokerAddress(settings.url),
    clientId,
    protocolVersion,
    clean: true,
    reconnectPeriod: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    rejectUnauthorized: true,
    ...(settings.ca === undefined ? {} : { ca: settings.ca }),
    ...(settings.client === undefined ? {} : { cert: settings.client.cert, key: settings.client.key }),
    ...(protocolVersion === 5 ? { properties: { maximumPacketSize: MAX_PACKET_BYTES } } : {}),
  };
  const client = connect(options);
  return new Promise((resolve) => {
    let lastError: Error | undefined;
    const timer = setTimeout(() => finish({ error: lastError }), CONNECT_TIMEOUT_MS + 1_000);
    const onError = (error: Error): void => {
      lastError = error;
    };
    const onClose = (): void => finish({ error: lastError });
    const finish = (outcome: CentralConnection | { error?: Error }): void => {
      clearTimeout(timer);
      client.removeListener('error', onError);
      client.removeListener('close', onClose);
      if (!('client' in outcome)) client.end(true);
      resolve(outcome);
    };
    client.on('error', onError);
    client.once('close', onClose);
    client.once('connect', () => finish({ client, clientId, protocolVersion }));
  });
}

/** The broker's answer to each filter, subscribed at QoS 0: a granted QoS, or a refusal (0x80 or more). */
export function subscribeCodes(connection: CentralConnection, filters: readonly string[]): Promise<number[]> {
  return Promise.all(
    filters.map(
      (filter) =>
        new Promise<number>((resolve) => {
          connection.client.subscribe(filter, { qos: 0 }, (error, granted, packet) => resolve(subackCode(granted, packet) ?? (error ? 0x80 : 0)));
        }),
    ),
  );
}

/** Subscribes to each filter at QoS 0; throws naming the filter the broker refuses. */
export async function subscribeAll(connection: CentralConnection, filters: readonly string[], address: string): Promise<void> {
  const codes = await subscribeCodes(connection, filters);
  const refused = codes.findIndex((code) => isRefusal(code));
  if (refused === -1) return;
  const words = reasonWords(codes[refused]!, connection.protocolVersion);
  throw new PanicPairError(
    'config',
    `the central broker at ${address} refuses this reader the subscription ${filters[refused]} (${words}): let the user or certificate it connects with (--certfile) read hubs/#`,
  );
}
