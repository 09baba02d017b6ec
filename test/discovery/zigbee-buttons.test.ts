import { describe, expect, it } from 'vitest';
import { profilesSchema, type Profile } from '../../src/config/profile.js';
import { createCounters } from '../../src/status/counters.js';
import { ProfileMatcher } from '../../src/discovery/profiles.js';
import type { Sighting } from '../../src/sighting.js';
import { MAX_ZIGBEE_BUTTONS } from '../../src/discovery/zigbee-buttons.js';
import { MAX_DEVICE_LIST_BYTES } from '../../src/discovery/zigbee-devices.js';
import { startZigbeeSource } from '../../src/discovery/zigbee2mqtt.js';
import type { MqttConnection, MqttState } from '../../src/mqtt/connection.js';
import { topicMatches, type MessageHandler } from '../../src/mqtt/subscriptions.js';
import type { SourceLiveness } from '../../src/supervision/types.js';
import { silentLogger } from '../../src/log/logger.js';

// The Zigbee2MQTT source driven by hand, message by message: which topics it subscribes to as
// the device list changes, and its bounds. The same source over a real broker is in
// test/daemon/mqtt-battery-liveness.test.ts.

class HandDrivenConnection implements MqttConnection {
  readonly filters = new Map<string, MessageHandler[]>();
  state = (): MqttState => 'connected';
  subscribe(filter: string, onMessage: MessageHandler): void {
    this.filters.set(filter, [...(this.filters.get(filter) ?? []), onMessage]);
  }
  publishRetained(): void {}
  onStateChange(): void {}
  close = (): Promise<void> => Promise.resolve();
  deliver(topic: string, payload: string | Buffer, retained = false): void {
    for (const [filter, handlers] of this.filters) {
      if (topicMatches(filter, topic)) for (const handler of handlers) handler(topic, Buffer.from(payload), retained);
    }
  }
}

const IEEE = (n: number): string => `0x00124b00${n.toString(16).padStart(8, '0')}`;
const button = (n: number, name = `button ${n}`) => ({ ieee_address: IEEE(n), friendly_name: name, definition: { model: 'SOS-1', vendor: 'Acme' } });
const plug = { ieee_address: '0xa4c1380000000001', friendly_name: 'plug', definition: { model: 'TS011F', vendor: 'TuYa' } };

function rig() {
  const profiles = profilesSchema.parse([{ name: 'zigbee-sos', match: { zigbeeModel: 'SOS-1' }, deviceId: { from: 'ieeeAddress' } }]) as Profile[];
  const connection = new HandDrivenConnection();
  const counters = createCounters();
  const sightings: Sighting[] = [];
  const liveness: SourceLiveness[] = [];
  const source = startZigbeeSource({
    connection,
    prefix: 'z2m',
    matcher: new ProfileMatcher(profiles),
    counters,
    logger: silentLogger(),
    onSighting: (s) => sightings.push(s),
    onLiveness: (l) => liveness.push(l),
    now: () => 5,
  });
  const list = (devices: unknown[]): void => connection.deliver('z2m/bridge/devices', JSON.stringify(devices), true);
  return { connection, counters, sightings, liveness, source, list };
}

describe('the Zigbee2MQTT source', () => {
  it('subscribes to the bridge and to each button of the device list, exactly', () => {
    const { connection, list } = rig();
    expect([...connection.filters.keys()]).toEqual(['z2m/bridge/event', 'z2m/bridge/devices', 'z2m/bridge/state']);
    list([button(1, 'hall/sos'), plug, button(2, 'bad+name'), button(3, 'bridge/x')]);
    expect([...connection.filters.keys()]).toEqual(['z2m/bridge/event', 'z2m/bridge/devices', 'z2m/bridge/state', 'z2m/hall/sos']);
  });

  it('hears a button\'s live reports, not retained or empty ones, nor those of a name since renamed', () => {
    const { connection, sightings, list } = rig();
    list([button(1, 'sos')]);
    connection.deliver('z2m/sos', '{"battery":9}', true);
    connection.deliver('z2m/sos', '');
    connection.deliver('z2m/sos', '{"action":"single","battery":88}');
    expect(sightings).toEqual([{ deviceId: IEEE(1), source: 'zigbee2mqtt', at: 5, battery: 88 }]);

    list([button(1, 'sos renamed')]);
    connection.deliver('z2m/sos', '{"battery":70}');
    connection.deliver('z2m/sos renamed', '{"battery":71}');
    expect(sightings.map((s) => s.battery)).toEqual([88, 71]);
  });

  it('counts a broken report or list as dropped, keeps the previous list, and counts an out-of-range battery apart', () => {
    const { connection, counters, sightings, list } = rig();
    list([button(1, 'sos')]);
    connection.deliver('z2m/sos', 'ON');
    connection.deliver('z2m/bridge/devices', '{"not":"a list"}', true);
    connection.deliver('z2m/bridge/devices', Buffer.alloc(MAX_DEVICE_LIST_BYTES + 1, 0x20), true);
    expect(counters.dropped).toBe(3);
    connection.deliver('z2m/sos', '{"battery":180}');
    expect(sightings).toEqual([{ deviceId: IEEE(1), source: 'zigbee2mqtt', at: 5 }]);
    expect(counters.batteryDropped).toBe(1);
  });

  it('subscribes to a bounded number of button topics', () => {
    const { connection, list } = rig();
    list(Array.from({ length: MAX_ZIGBEE_BUTTONS + 5 }, (_, n) => button(n)));
    expect(connection.filters.size).toBe(3 + MAX_ZIGBEE_BUTTONS);
    // The same list again adds nothing.
    list(Array.from({ length: MAX_ZIGBEE_BUTTONS + 5 }, (_, n) => button(n)));
    expect(connection.filters.size).toBe(3 + MAX_ZIGBEE_BUTTONS);
  });

  it('tells the bridge state as the liveness of the source zigbee2mqtt', () => {
    const { connection, counters, liveness } = rig();
    connection.deliver('z2m/bridge/state', '{"state":"online"}', true);
    connection.deliver('z2m/bridge/state', 'offline');
    connection.deliver('z2m/bridge/state', '');
    connection.deliver('z2m/bridge/state', '{"state":"restarting"}');
    expect(liveness).toEqual([
      { source: 'zigbee2mqtt', up: true },
      { source: 'zigbee2mqtt', up: false },
    ]);
    expect(counters.dropped).toBe(1);
  });

  it('hears nothing once stopped', () => {
    const { connection, sightings, source, list } = rig();
    list([button(1, 'sos')]);
    source.stop();
    connection.deliver('z2m/sos', '{"battery":50}');
    expect(sightings).toEqual([]);
  });
});
