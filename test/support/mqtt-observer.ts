import { connectAsync, type MqttClient } from 'mqtt';
import { waitFor } from './wait.js';

export interface ObservedMessage {
  topic: string;
  payload: string;
  /** True when the broker delivered it as a stored retained message. */
  retain: boolean;
  /** The QoS the broker delivered it with (at most the observer's subscription, QoS 1). */
  qos: number;
}

export interface MqttObserver {
  client: MqttClient;
  messages: ObservedMessage[];
  /** Payloads seen on one topic, in order. */
  payloads(topic: string): string[];
  close(): Promise<void>;
}

/** A plain mqtt.js client watching `filter`, the way a home automation system would. */
export async function observe(url: string, filter: string | string[]): Promise<MqttObserver> {
  // Reconnects quickly and subscribes again, so it survives a broker restart in a test.
  const client = await connectAsync(url, { reconnectPeriod: 100, clean: true });
  const messages: ObservedMessage[] = [];
  client.on('message', (topic, payload, packet) => {
    messages.push({ topic, payload: payload.toString(), retain: packet.retain, qos: packet.qos });
  });
  await client.subscribeAsync(filter, { qos: 1 });
  return {
    client,
    messages,
    payloads: (topic) => messages.filter((message) => message.topic === topic).map((message) => message.payload),
    close: () => client.endAsync(true),
  };
}

/** Publishes once from a short-lived client and waits for the broker's acknowledgement. */
export async function publishOnce(url: string, topic: string, payloads: Array<string | Buffer>, options: { retain?: boolean } = {}): Promise<void> {
  const client = await connectAsync(url, { reconnectPeriod: 0 });
  try {
    for (const payload of payloads) await client.publishAsync(topic, payload, { qos: 1, retain: options.retain ?? false });
  } finally {
    await client.endAsync();
  }
}

/** Until a source's subscription to `topic` is in place: publishes `probe`, a message the source
 * counts and ignores (no sighting, nothing dropped or logged, so the warnings a test looks for keep
 * their allowance), until the source's `announcements` counter rises. */
export async function untilSubscribed(url: string, topic: string, probe: string, counters: { announcements: number }): Promise<void> {
  await waitFor(
    async () => {
      await publishOnce(url, topic, [probe]);
      return counters.announcements > 0;
    },
    { what: 'the subscription' },
  );
}
