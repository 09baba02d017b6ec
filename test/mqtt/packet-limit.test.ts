import { afterEach, describe, expect, it } from 'vitest';
import { connectMqtt, type MqttConnection } from '../../src/mqtt/connection.js';
import { maximumPacketSize, oversized, PACKET_OVERHEAD_BYTES } from '../../src/mqtt/packet-limit.js';
import { largestMqttPayload, MQTT_PAYLOAD_LIMIT_BYTES } from '../../src/discovery/payload-limit.js';
import { MAX_DEVICE_LIST_BYTES } from '../../src/discovery/zigbee-devices.js';
import { silentLogger } from '../../src/log/logger.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { publishOnce } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// The largest MQTT message the hub takes: MQTT 5 tells the broker, which sends nothing
// larger; over 3.1.1 a larger one is dropped at the first look, before any handler, and counted.

const LIMIT = 2048;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A connection with a small limit, its handler's payloads and its oversized messages. */
async function limited(broker: TestBroker): Promise<{ connection: MqttConnection & { protocol(): string | undefined }; heard: Buffer[]; refused: Array<{ topic: string; bytes: number }> }> {
  const heard: Buffer[] = [];
  const refused: Array<{ topic: string; bytes: number }> = [];
  const connection = connectMqtt({
    url: broker.url,
    prefix: `limit${cleanups.length}`,
    logger: silentLogger(),
    reconnectDelay: () => 50,
    maxPayloadBytes: LIMIT,
    onOversized: (topic, bytes) => refused.push({ topic, bytes }),
  });
  cleanups.push(() => connection.close());
  connection.subscribe('limit/in', (_topic, payload) => heard.push(payload));
  await waitFor(() => connection.state() === 'connected', { what: 'the connection' });
  // Until the subscription is in place: a probe that arrives.
  await waitFor(
    async () => {
      await publishOnce(broker.url, 'limit/in', ['probe']);
      return heard.length > 0;
    },
    { what: 'the subscription' },
  );
  heard.length = 0;
  return { connection, heard, refused };
}

/** A large message then a small one, in order on one topic: once the small one is heard the large one had its turn. */
async function largeThenSmall(broker: TestBroker, heard: Buffer[]): Promise<void> {
  await publishOnce(broker.url, 'limit/in', [Buffer.alloc(200_000, 0x7b), Buffer.alloc(LIMIT, 0x61), 'small']);
  await waitFor(() => heard.some((payload) => payload.toString() === 'small'), { what: 'the small message' });
}

describe('the largest MQTT message the hub takes', () => {
  it('is the largest any reader takes: 64 kB, or the Zigbee2MQTT device list when that is read', () => {
    expect(largestMqttPayload({ zigbee2mqtt: false })).toBe(MQTT_PAYLOAD_LIMIT_BYTES);
    expect(MQTT_PAYLOAD_LIMIT_BYTES).toBe(64 * 1024);
    expect(largestMqttPayload({ zigbee2mqtt: true })).toBe(MAX_DEVICE_LIST_BYTES);
    expect(maximumPacketSize(LIMIT)).toBe(LIMIT + PACKET_OVERHEAD_BYTES);
    expect(oversized(Buffer.alloc(LIMIT), LIMIT)).toBe(false);
    expect(oversized(Buffer.alloc(LIMIT + 1), LIMIT)).toBe(true);
    expect(oversized(Buffer.alloc(LIMIT + 1), undefined)).toBe(false);
  });

  it('over MQTT 5 is told to the broker, which sends nothing larger', { timeout: 30_000 }, async (context) => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    if (broker.kind !== 'mosquitto') context.skip();
    const { connection, heard, refused } = await limited(broker);
    expect(connection.protocol()).toBe('5');
    await largeThenSmall(broker, heard);
    // The limit is the packet's; a payload of exactly LIMIT fits within the overhead allowed.
    expect(heard.map((payload) => payload.length)).toEqual([LIMIT, 5]);
    expect(refused).toEqual([]);
  });

  it('over MQTT 3.1.1 drops a larger message before any handler and says so, to be counted', { timeout: 30_000 }, async () => {
    const broker = await startBroker({ kind: 'embedded' });
    cleanups.push(() => broker.stop());
    const { connection, heard, refused } = await limited(broker);
    expect(connection.protocol()).toBe('3.1.1');
    await largeThenSmall(broker, heard);
    expect(heard.map((payload) => payload.length)).toEqual([LIMIT, 5]);
    expect(refused).toEqual([{ topic: 'limit/in', bytes: 200_000 }]);
  });
});
