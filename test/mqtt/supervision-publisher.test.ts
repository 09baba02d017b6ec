import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { connectMqtt, type MqttConnection, type MqttState } from '../../src/mqtt/connection.js';
import { startHomeAssistant } from '../../src/mqtt/home-assistant.js';
import { createSupervisionPublisher } from '../../src/mqtt/supervision-publisher.js';
import { availabilityTopic, supervisionTopic } from '../../src/mqtt/topics.js';
import type { ButtonLiveness, DeviceRow } from '../../src/supervision/types.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { binarySensorState, renderTemplates } from '../support/home-assistant-render.js';
import { observe, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// A linked button's availability and supervision on MQTT: first what is
// published for each supervision word, on a connection that only records; then what a
// subscriber that comes later reads from mosquitto.

const liveness = (overrides: Partial<ButtonLiveness> = {}): ButtonLiveness => ({
  lastHeard: '2026-11-26T09:14:00.000Z',
  battery: 15,
  batteryLow: true,
  supervision: 'online',
  deadlineSeconds: 3600,
  ...overrides,
});

class RecordingConnection implements MqttConnection {
  readonly published: Array<[string, string]> = [];
  state = (): MqttState => 'connected';
  subscribe(): void {}
  publishRetained(topic: string, payload: string): void {
    this.published.push([topic, payload]);
  }
  onStateChange(): void {}
  close = (): Promise<void> => Promise.resolve();
}

describe('what each supervision word publishes', () => {
  const supervision = (overrides: Partial<ButtonLiveness> = {}): string => {
    const { supervision: word, lastHeard, battery, batteryLow } = liveness(overrides);
    return JSON.stringify({ supervision: word, lastHeard, battery, batteryLow });
  };

  it('online and missing: Zigbee2MQTT’s availability, and the supervision beside it', () => {
    const connection = new RecordingConnection();
    const publisher = createSupervisionPublisher(connection, 'hub');
    publisher.liveness('7F3A9C', liveness());
    publisher.liveness('7F3A9C', liveness({ supervision: 'missing' }));
    expect(connection.published).toEqual([
      ['hub/devices/7F3A9C/availability', '{"state":"online"}'],
      ['hub/devices/7F3A9C/supervision', supervision()],
      ['hub/devices/7F3A9C/availability', '{"state":"offline"}'],
      ['hub/devices/7F3A9C/supervision', supervision({ supervision: 'missing' })],
    ]);
    expect(JSON.parse(connection.published[1]![1])).toEqual({ supervision: 'online', lastHeard: '2026-11-26T09:14:00.000Z', battery: 15, batteryLow: true });
  });

  it('unknown: no availability at all; unsupervised: the availability cleared', () => {
    const connection = new RecordingConnection();
    const publisher = createSupervisionPublisher(connection, 'hub');
    publisher.liveness('B2', liveness({ supervision: 'unknown', lastHeard: null, battery: null, batteryLow: false }));
    publisher.liveness('B2', liveness({ supervision: 'unsupervised', deadlineSeconds: null }));
    expect(connection.published).toEqual([
      ['hub/devices/B2/supervision', '{"supervision":"unknown","lastHeard":null,"battery":null,"batteryLow":false}'],
      ['hub/devices/B2/availability', ''],
      ['hub/devices/B2/supervision', supervision({ supervision: 'unsupervised' })],
    ]);
  });

  it('a forgotten button: both topics cleared', () => {
    const connection = new RecordingConnection();
    createSupervisionPublisher(connection, 'hub').forgotten('B2');
    expect(connection.published).toEqual([
      ['hub/devices/B2/availability', ''],
      ['hub/devices/B2/supervision', ''],
    ]);
  });

  it('refuses a device id that would break out of its topic level', () => {
    const publisher = createSupervisionPublisher(new RecordingConnection(), 'hub');
    for (const deviceId of ['a/b', '+', '#', '']) {
      expect(() => publisher.liveness(deviceId, liveness())).toThrow(/cannot be used in an MQTT topic/);
      expect(() => availabilityTopic('hub', deviceId)).toThrow(/cannot be used in an MQTT topic/);
      expect(() => supervisionTopic('hub', deviceId)).toThrow(/cannot be used in an MQTT topic/);
    }
  });
});

describe('on mosquitto', () => {
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

  it('leaves a later subscriber the latest retained state, and nothing of a forgotten button', async () => {
    const publisher = createSupervisionPublisher(connection, 'hub');
    publisher.liveness('GONE', liveness({ supervision: 'missing' }));
    publisher.liveness('LOST', liveness({ supervision: 'online' }));
    publisher.liveness('LOST', liveness({ supervision: 'missing', battery: 12 }));
    publisher.liveness('TRIGGER', liveness({ supervision: 'missing' }));
    publisher.liveness('TRIGGER', liveness({ supervision: 'unsupervised', deadlineSeconds: null }));
    publisher.forgotten('GONE');
    publisher.liveness('LAST', liveness());

    const reader = await observe(broker.url, 'hub/devices/#');
    // The last one published arrives last: everything before it is in too.
    await waitFor(() => reader.messages.some((message) => message.topic === 'hub/devices/LAST/supervision'), { what: 'the retained states' });
    await reader.close();
    expect(reader.messages.every((message) => message.retain && message.qos === 1)).toBe(true);
    const byTopic = Object.fromEntries(reader.messages.map((message) => [message.topic, JSON.parse(message.payload) as unknown]));
    expect(byTopic).toEqual({
      'hub/devices/LOST/availability': { state: 'offline' },
      'hub/devices/LOST/supervision': { supervision: 'missing', lastHeard: '2026-11-26T09:14:00.000Z', battery: 12, batteryLow: true },
      'hub/devices/TRIGGER/supervision': { supervision: 'unsupervised', lastHeard: '2026-11-26T09:14:00.000Z', battery: 15, batteryLow: true },
      'hub/devices/LAST/availability': { state: 'online' },
      'hub/devices/LAST/supervision': { supervision: 'online', lastHeard: '2026-11-26T09:14:00.000Z', battery: 15, batteryLow: true },
    });
  });
});

describe('what a Home Assistant starting later shows, read from mosquitto', () => {
  let broker: TestBroker;
  let connection: MqttConnection;
  const hub = { prefix: 'ha-hub', discoveryPrefix: 'homeassistant', version: '1.0.0' };
  const stored = (deviceId: string): DeviceRow => ({ deviceId, state: 'linked', customerId: 42, source: 'ble', linkId: 7, updatedAt: '2026-11-26T08:00:00.000Z' });

  beforeAll(async () => {
    broker = await startBroker();
    connection = connectMqtt({ url: broker.url, prefix: hub.prefix, logger: silentLogger() });
    await waitFor(() => connection.state() === 'connected', { what: 'the connection' });
  });
  afterAll(async () => {
    await connection.close();
    await broker.stop();
  });

  /** Each entity of a config topic, rendered against its state topic's retained payload: what it shows. */
  async function shown(reader: MqttObserver, objectId: string): Promise<{ config: Record<string, string>; rendered: string }> {
    const topicOf = (component: string) => `homeassistant/${component}/${hub.prefix}/${objectId}/config`;
    const message = reader.messages.find((m) => m.topic === topicOf('binary_sensor') || m.topic === topicOf('sensor'));
    if (message === undefined) throw new Error(`no config for ${objectId}`);
    const config = JSON.parse(message.payload) as Record<string, string>;
    const state = reader.payloads(config.state_topic!).at(-1) ?? '';
    const [rendered] = renderTemplates([{ template: config.value_template!, payload: state }]);
    return { config, rendered: rendered! };
  }

  it('a missing button with a low battery: Missing on, its battery, its last heard time; a button never heard: unknown', async () => {
    const rows = [stored('LOST'), stored('NEW')];
    const discovery = startHomeAssistant({ connection, hub, devices: () => rows, logger: silentLogger(), birthDelay: () => 0 });
    const publisher = createSupervisionPublisher(connection, hub.prefix);
    const lost = liveness({ supervision: 'missing', battery: 15, batteryLow: true });
    const fresh = liveness({ supervision: 'unknown', lastHeard: null, battery: null, batteryLow: false });
    publisher.liveness('LOST', lost);
    discovery.livenessChanged('LOST', lost);
    publisher.liveness('NEW', fresh);
    discovery.livenessChanged('NEW', fresh);
    try {
      const reader = await observe(broker.url, ['homeassistant/#', `${hub.prefix}/#`]);
      // The round publishes the buttons in order, NEW's last: once its last config is in, all are.
      await waitFor(() => reader.messages.some((m) => m.topic.endsWith('/last_heard_NEW/config')), { what: 'the configs' });
      await reader.close();
      const missing = await shown(reader, 'missing_LOST');
      expect(missing.config).toMatchObject({ name: 'Missing', device_class: 'problem' });
      expect(binarySensorState(missing.rendered, missing.config)).toBe('on');
      expect((await shown(reader, 'battery_LOST')).rendered).toBe('15');
      expect((await shown(reader, 'last_heard_LOST')).rendered).toBe('2026-11-26T09:14:00.000Z');
      // Never heard, no battery: Last heard unknown, Missing never set, no battery entity at all.
      expect((await shown(reader, 'last_heard_NEW')).rendered).toBe('None');
      expect(reader.payloads(`${hub.prefix}/devices/NEW/availability`)).toEqual([]);
      expect(reader.messages.some((m) => m.topic.includes('battery_NEW'))).toBe(false);
    } finally {
      discovery.stop();
    }
  });
});
