import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { connectMqtt, type MqttConnection } from '../../src/mqtt/connection.js';
import { createStatePublisher } from '../../src/mqtt/state-publisher.js';
import type { DeviceRecord } from '../../src/store/record.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { observe } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

const linked: DeviceRecord = {
  deviceId: '7F3A9C',
  state: 'linked',
  customerId: 42,
  source: 'ble',
  linkId: 901,
  linkedAt: '2025-03-01T12:00:01.000Z',
  updatedAt: '2025-03-01T12:00:01.000Z',
};
const linking: DeviceRecord = { deviceId: 'BTN:2', state: 'linking', customerId: 42, source: 'mqtt', updatedAt: '2025-03-01T12:00:00.000Z' };

describe('createStatePublisher', () => {
  let broker: TestBroker;
  let connection: MqttConnection;

  beforeAll(async () => {
    broker = await startBroker();
    connection = connectMqtt({ url: broker.url, prefix: 'hub', logger: silentLogger() });
    await waitFor(() => connection.state() === 'connected', { what: 'the connection' });
  });
  afterAll(async () => {
    await connection.close();
    await broker.stop();
  });

  it('publishes retained device and entitlement states in their documented shapes', async () => {
    const publisher = createStatePublisher(connection, 'hub');
    publisher.device(linking);
    publisher.device(linked);
    publisher.entitlement({ customerId: 42, entitled: null });
    publisher.entitlement({ customerId: 42, entitled: true, checkedAt: '2025-03-01T11:59:59.000Z' });

    // A dashboard that subscribes later gets the retained state.
    const reader = await observe(broker.url, ['hub/devices/+', 'hub/entitlement']);
    await waitFor(() => reader.messages.length === 3, { what: 'three retained messages' });
    await reader.close();
    const byTopic = Object.fromEntries(reader.messages.map((message) => [message.topic, message]));
    expect(reader.messages.every((message) => message.retain)).toBe(true);
    expect(JSON.parse(byTopic['hub/devices/7F3A9C']!.payload)).toStrictEqual({ state: 'linked', customerId: 42, linkId: 901, at: '2025-03-01T12:00:01.000Z' });
    expect(JSON.parse(byTopic['hub/devices/BTN:2']!.payload)).toStrictEqual({ state: 'linking', customerId: 42, at: '2025-03-01T12:00:00.000Z' });
    expect(JSON.parse(byTopic['hub/entitlement']!.payload)).toStrictEqual({ customerId: 42, entitled: true, checkedAt: '2025-03-01T11:59:59.000Z' });
  });

  it('publishes nothing while entitlement is unknown', async () => {
    const publisher = createStatePublisher(connection, 'fresh');
    publisher.entitlement({ customerId: 7, entitled: null, error: 'API unreachable' });
    publisher.entitlement({ customerId: 7, entitled: false, checkedAt: '2025-03-01T12:00:00.000Z' });
    const reader = await observe(broker.url, 'fresh/entitlement');
    await waitFor(() => reader.messages.length > 0, { what: 'the retained entitlement' });
    await reader.close();
    expect(reader.messages.map((message) => JSON.parse(message.payload))).toEqual([{ customerId: 7, entitled: false, checkedAt: '2025-03-01T12:00:00.000Z' }]);
  });

  it('refuses a device id that would break out of its topic level', () => {
    const publisher = createStatePublisher(connection, 'hub');
    for (const deviceId of ['a/b', '+', '#', '']) {
      expect(() => publisher.device({ ...linked, deviceId })).toThrow(/cannot be used in an MQTT topic/);
    }
  });
});
