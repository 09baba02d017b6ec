import type { MqttClient } from 'mqtt';
import { errorCodeOf } from '../errors.js';
import { isRefusal, subackCode } from './broker-answers.js';
import type { BrokerRefusals } from './refusals.js';

// Every subscription and retained publish of the daemon, with the broker's answer read: a SUBACK
// of 0x80 or more (either protocol) or a PUBACK of 0x80 or more (MQTT 5) is a refusal, kept in
// `refusals` until the broker grants or accepts the same request.

const QOS1_RETAINED = { qos: 1, retain: true } as const;

export interface CheckedRequests {
  /** One SUBSCRIBE a filter, so each SUBACK answers for one filter. */
  subscribe(filter: string): void;
  /** QoS 1 so that the broker acknowledges it, retained. */
  publish(topic: string, payload: string): void;
  /** At each connect, before anything is sent on it. */
  connected(): void;
  /** Asks again what the broker refused; with `unsentOnly`, publishes not sent since the connect. */
  retryRefused(unsentOnly: boolean): void;
}

export interface CheckedRequestsOptions {
  client: MqttClient;
  refusals: BrokerRefusals;
  /** The protocol spoken now: 3.1.1's SUBACK says only "refused". */
  version(): 4 | 5;
  onRefusal(fields: { filter?: string; topic?: string; reason: string }, message: string): void;
  onFailure(error: Error | null | undefined): void;
}

export function checkedRequests(options: CheckedRequestsOptions): CheckedRequests {
  const { client, refusals } = options;
  /** Topics published since the latest connect: a refused one already sent again needs no retry. */
  const sentSinceConnect = new Set<string>();

  const subscribe = (filter: string): void => {
    const version = options.version();
    client.subscribe(filter, { qos: 0 }, (error, granted, packet) => {
      const code = subackCode(granted, packet);
      if (code === undefined) return options.onFailure(error);
      const reason = refusals.subscriptionAnswered(filter, code, version);
      if (reason !== undefined) options.onRefusal({ filter, reason }, 'the broker refused a subscription: the hub cannot hear that topic');
    });
  };
  const publish = (topic: string, payload: string): void => {
    sentSinceConnect.add(topic);
    client.publish(topic, payload, QOS1_RETAINED, (error, packet) => {
      const code = (packet as { reasonCode?: number } | undefined)?.reasonCode ?? errorCodeOf(error);
      if (typeof code === 'number' && isRefusal(code)) {
        const reason = refusals.publishRefused(topic, payload, code);
        options.onRefusal({ topic, reason }, 'the broker refused a publish: its retained state is missing');
      } else if (error) options.onFailure(error);
      else refusals.publishAccepted(topic);
    });
  };
  return {
    subscribe,
    publish,
    connected: () => sentSinceConnect.clear(),
    retryRefused(unsentOnly) {
      if (!unsentOnly) for (const filter of refusals.refusedFilters()) subscribe(filter);
      for (const pending of refusals.pendingPublishes()) {
        if (!unsentOnly || !sentSinceConnect.has(pending.topic)) publish(pending.topic, pending.payload);
      }
    },
  };
}
