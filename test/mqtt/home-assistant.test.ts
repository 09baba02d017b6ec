import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import type { MqttConnection, MqttState } from '../../src/mqtt/connection.js';
import { buttonConfigs, buttonConfigTopics, desiredConfigs, type HubIdentity } from '../../src/mqtt/home-assistant-configs.js';
import { startHomeAssistant, type HomeAssistantDiscovery } from '../../src/mqtt/home-assistant.js';
import { topicMatches } from '../../src/mqtt/subscriptions.js';
import type { DeviceRecord } from '../../src/store/record.js';
import type { ButtonLiveness } from '../../src/supervision/types.js';

// The order of events around a connect, a birth and a forget, on a connection that the test
// drives by hand (the same module against mosquitto: test/daemon/home-assistant.test.ts).

const hub: HubIdentity = { prefix: 'hub', discoveryPrefix: 'homeassistant', version: '1.0.0' };
const record = (deviceId: string): DeviceRecord => ({ deviceId, state: 'linked', customerId: 42, source: 'mqtt', updatedAt: '2026-01-01T00:00:00.000Z' });

class HandDrivenConnection implements MqttConnection {
  current: MqttState = 'connecting';
  readonly filters: Array<[string, (topic: string, payload: Buffer) => void]> = [];
  readonly published: Array<[string, string]> = [];
  readonly #listeners: Array<(state: MqttState) => void> = [];
  state = (): MqttState => this.current;
  subscribe(filter: string, onMessage: (topic: string, payload: Buffer) => void): void {
    this.filters.push([filter, onMessage]);
  }
  publishRetained(topic: string, payload: string): void {
    this.published.push([topic, payload]);
  }
  onStateChange(listener: (state: MqttState) => void): void {
    this.#listeners.push(listener);
  }
  close = (): Promise<void> => Promise.resolve();
  setState(state: MqttState): void {
    this.current = state;
    for (const listener of this.#listeners) listener(state);
  }
  /** A message from the broker, to every matching subscription. */
  deliver(topic: string, payload: string): void {
    for (const [filter, handler] of this.filters) if (topicMatches(filter, topic)) handler(topic, Buffer.from(payload));
  }
  take(): Array<[string, string]> {
    return this.published.splice(0);
  }
}

describe('Home Assistant discovery around the broker connection', () => {
  let connection: HandDrivenConnection;
  let devices: DeviceRecord[];
  let discovery: HomeAssistantDiscovery;
  const birthDelay = vi.fn(() => 1_000);

  beforeEach(() => {
    vi.useFakeTimers();
    connection = new HandDrivenConnection();
    devices = [record('B1')];
    discovery = startHomeAssistant({ connection, hub, devices: () => devices, logger: silentLogger(), birthDelay, settleTimeoutMs: 5_000, birthCooldownMs: 30_000, clock: () => Date.now() });
  });
  afterEach(() => {
    discovery.stop();
    vi.useRealTimers();
  });

  it('subscribes to its own configs before the status marker, and to no command topic', () => {
    expect(connection.filters.map(([filter]) => filter)).toEqual(['homeassistant/+/hub/+/config', 'hub/status/#', 'homeassistant/status']);
  });

  it('waits for the retained configs, then publishes only what differs and clears the stale', () => {
    const desired = desiredConfigs(hub, devices);
    const [same, changed] = [...desired.keys()];
    connection.setState('connected');
    connection.deliver(same!, desired.get(same!)!);
    connection.deliver(changed!, '{"old":true}');
    connection.deliver('homeassistant/sensor/hub/button_GONE/config', '{"old":true}');
    expect(connection.published).toEqual([]);
    connection.deliver('hub/status', 'online');
    expect(connection.take()).toEqual([
      ...[...desired].filter(([topic]) => topic !== same),
      ['homeassistant/sensor/hub/button_GONE/config', ''],
    ]);
    // Our own configs coming back change nothing.
    for (const [topic, payload] of desired) connection.deliver(topic, payload);
    expect(connection.published).toEqual([]);
  });

  it('publishes after a time-out when the marker never comes', () => {
    connection.setState('connected');
    vi.advanceTimersByTime(4_999);
    expect(connection.published).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(connection.take()).toEqual([...desiredConfigs(hub, devices)]);
  });

  it('answers one birth message with every config, once, after the pause; before the round, not at all', () => {
    connection.setState('connected');
    connection.deliver('homeassistant/status', 'online');
    connection.deliver('hub/status', 'online');
    const first = connection.take();
    // The hub's three, and the linked button's link state, Missing and Last heard.
    expect(first).toHaveLength(6);
    connection.deliver('homeassistant/status', 'online');
    connection.deliver('homeassistant/status', 'online');
    connection.deliver('homeassistant/status', 'offline');
    vi.advanceTimersByTime(999);
    expect(connection.published).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(connection.take()).toEqual(first);
    vi.advanceTimersByTime(10_000);
    expect(connection.published).toEqual([]);
    // Another birth within the cool-down is answered once it ends, not before.
    connection.deliver('homeassistant/status', 'online');
    vi.advanceTimersByTime(30_000 - 10_000 - 1);
    expect(connection.published).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(connection.take()).toEqual(first);
  });

  it('publishes a new button once, never for a state change, and clears a forgotten one', () => {
    connection.setState('connected');
    connection.deliver('hub/status', 'online');
    connection.take();
    const b2 = record('B2');
    devices.push(b2);
    discovery.deviceChanged({ ...b2, state: 'linking' });
    discovery.deviceChanged(b2);
    expect(connection.take()).toEqual([...buttonConfigs(hub, b2)]);
    // A device the store does not hold is not shown.
    discovery.deviceChanged({ ...record('B9'), state: 'failed' });
    expect(connection.published).toEqual([]);
    devices = devices.filter((device) => device.deviceId !== 'B2');
    discovery.forgotten('B2');
    // Every entity it may have, its battery sensor included, published or not.
    expect(connection.take()).toEqual(buttonConfigTopics(hub, 'B2').map((topic) => [topic, '']));
    const [topic] = buttonConfigs(hub, b2).keys();
    // An older copy of its config still on its way is cleared again.
    connection.deliver(topic!, buttonConfigs(hub, b2).get(topic!)!);
    expect(connection.take()).toEqual([[topic, '']]);
  });

  it('adds the battery sensor once a battery is first known, keeps it over a restart that forgot the reading, clears it at forget', () => {
    const liveness = (battery: number | null): ButtonLiveness => ({ lastHeard: '2026-01-01T00:00:00.000Z', battery, batteryLow: false, supervision: 'online', deadlineSeconds: 3600 });
    connection.setState('connected');
    connection.deliver('hub/status', 'online');
    connection.take();
    discovery.livenessChanged('B1', liveness(null));
    expect(connection.published).toEqual([]);
    discovery.livenessChanged('B1', liveness(80));
    const withBattery = buttonConfigs(hub, { ...record('B1'), battery: 80 });
    const battery = [...withBattery].filter(([topic]) => !buttonConfigs(hub, record('B1')).has(topic));
    expect(battery.map(([topic]) => topic)).toEqual(['homeassistant/sensor/hub/battery_B1/config']);
    expect(connection.take()).toEqual(battery);
    // A later reading changes no config.
    discovery.livenessChanged('B1', liveness(79));
    expect(connection.published).toEqual([]);

    // Another daemon (a restart): the broker holds the battery sensor; the reading is not known yet.
    discovery.stop();
    const restarted = new HandDrivenConnection();
    const again = startHomeAssistant({ connection: restarted, hub, devices: () => devices, logger: silentLogger(), birthDelay, settleTimeoutMs: 5_000 });
    restarted.setState('connected');
    for (const [topic, payload] of withBattery) restarted.deliver(topic, payload);
    for (const [topic, payload] of desiredConfigs(hub, [])) restarted.deliver(topic, payload);
    restarted.deliver('hub/status', 'online');
    expect(restarted.take()).toEqual([]);
    devices = [];
    again.forgotten('B1');
    expect(restarted.take().map(([topic, payload]) => [topic, payload])).toContainEqual([battery[0]![0], '']);
    again.stop();
  });

  it('starts over at each reconnect, and does nothing once stopped', () => {
    connection.setState('connected');
    connection.deliver('hub/status', 'online');
    connection.take();
    connection.setState('disconnected');
    connection.setState('connected');
    // The broker restarted without its retained messages: everything again.
    connection.deliver('hub/status', 'online');
    expect(connection.take()).toHaveLength(6);
    discovery.stop();
    connection.setState('connected');
    connection.deliver('hub/status', 'online');
    connection.deliver('homeassistant/status', 'online');
    devices.push(record('B3'));
    discovery.deviceChanged(record('B3'));
    vi.advanceTimersByTime(10_000);
    expect(connection.published).toEqual([]);
  });
});
