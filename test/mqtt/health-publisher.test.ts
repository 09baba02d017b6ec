import { describe, expect, it } from 'vitest';
import type { HealthReading } from '../../src/mqtt/health.js';
import type { MqttState } from '../../src/mqtt/connection.js';
import { HEALTH_REFRESH_MS, HealthPublisher } from '../../src/mqtt/health-publisher.js';
import type { HealthPayload } from '../../src/mqtt/topics.js';

// "On change, and at most once a minute otherwise", driven by a fake monotonic clock and a wall
// clock that jumps on its own, as a Raspberry Pi's does when NTP sets it.

const healthy: HealthReading = {
  version: '1.2.3',
  healthy: true,
  problems: [],
  ble: 'scanning',
  mqtt: 'connected',
  devices: { total: 1, linked: 1, linking: 0, rejected: 0, failed: 0 },
  buttons: { linked: 1, online: 1, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 },
  uptimeSeconds: 10,
  update: null,
};

function rig() {
  let monotonic = 5_000;
  let wall = Date.parse('2026-01-01T00:00:00.000Z');
  let state: MqttState = 'connected';
  let reading: HealthReading = healthy;
  const published: Array<{ topic: string; payload: HealthPayload }> = [];
  const publisher = new HealthPublisher({
    connection: { state: () => state, publishRetained: (topic, payload) => published.push({ topic, payload: JSON.parse(payload) as HealthPayload }) },
    prefix: 'hub-7',
    read: () => reading,
    clocks: { monotonic: () => monotonic, wall: () => wall },
  });
  return {
    publisher,
    published,
    /** Both clocks move together, as they do when nothing sets the wall clock. */
    advance(ms: number) {
      monotonic += ms;
      wall += ms;
      reading = { ...reading, uptimeSeconds: reading.uptimeSeconds + Math.floor(ms / 1000) };
    },
    jumpWall(ms: number) {
      wall += ms;
    },
    set(next: Partial<HealthReading>) {
      reading = { ...reading, ...next };
    },
    setState(next: MqttState) {
      state = next;
    },
  };
}

describe('HealthPublisher', () => {
  it('publishes the first reading at once, retained on <prefix>/health, stamped by the wall clock', () => {
    const hub = rig();
    expect(hub.publisher.sample()).toBe(true);
    expect(hub.published).toEqual([{ topic: 'hub-7/health', payload: { ...healthy, at: '2026-01-01T00:00:00.000Z' } }]);
  });

  it('publishes nothing more while nothing but the uptime changes, until a minute has passed', () => {
    const hub = rig();
    hub.publisher.sample();
    for (let second = 1; second < HEALTH_REFRESH_MS / 1000; second++) {
      hub.advance(1_000);
      expect(hub.publisher.sample()).toBe(false);
    }
    hub.advance(1_000);
    expect(hub.publisher.sample()).toBe(true);
    expect(hub.published).toHaveLength(2);
    expect(hub.published[1]!.payload.uptimeSeconds).toBe(70);
    expect(hub.published[1]!.payload.at).toBe('2026-01-01T00:01:00.000Z');
  });

  it('publishes a change at once, and the next refresh counts from that publish', () => {
    const hub = rig();
    hub.publisher.sample();
    hub.advance(20_000);
    hub.set({ healthy: false, problems: ['BLE is unavailable: no adapter'], ble: 'unavailable' });
    expect(hub.publisher.sample()).toBe(true);
    expect(hub.published[1]!.payload).toMatchObject({ healthy: false, problems: ['BLE is unavailable: no adapter'], ble: 'unavailable' });
    // A minute after the change, not after the first publish.
    hub.advance(HEALTH_REFRESH_MS - 1_000);
    expect(hub.publisher.sample()).toBe(false);
    hub.advance(1_000);
    expect(hub.publisher.sample()).toBe(true);
    // Each change is its own message, a device count as much as a problem.
    hub.set({ devices: { total: 2, linked: 1, linking: 1, rejected: 0, failed: 0 } });
    expect(hub.publisher.sample()).toBe(true);
    hub.set({ devices: { total: 2, linked: 2, linking: 0, rejected: 0, failed: 0 } });
    expect(hub.publisher.sample()).toBe(true);
    expect(hub.published).toHaveLength(5);
  });

  it('publishes a change of the update at once: probation, then rolled back', () => {
    const hub = rig();
    hub.publisher.sample();
    hub.advance(1_000);
    const probation = { state: 'probation', version: '0.3.2', previous: '0.3.1', reason: null, at: '2026-01-01T00:00:01.000Z' } as const;
    hub.set({ update: probation });
    expect(hub.publisher.sample()).toBe(true);
    hub.advance(1_000);
    const rolledBack = { ...probation, state: 'rolled-back', reason: 'not ready within 150 s', at: '2026-01-01T00:00:02.000Z' } as const;
    hub.set({ version: '0.3.1', healthy: false, problems: ['update to 0.3.2 rolled back to 0.3.1: not ready within 150 s'], update: rolledBack });
    expect(hub.publisher.sample()).toBe(true);
    expect(hub.published.map((message) => message.payload.update)).toEqual([null, probation, rolledBack]);
  });

  it('keeps its minute on the monotonic clock when the wall clock jumps', () => {
    const hub = rig();
    hub.publisher.sample();
    // NTP sets a clock that was a day behind, then one that ran an hour ahead.
    hub.jumpWall(24 * 3_600_000);
    hub.advance(1_000);
    expect(hub.publisher.sample()).toBe(false);
    hub.jumpWall(-3_600_000);
    hub.advance(HEALTH_REFRESH_MS - 1_000);
    expect(hub.publisher.sample()).toBe(true);
    expect(hub.published[1]!.payload.at).toBe('2026-01-01T23:01:00.000Z');
  });

  it('publishes nothing while the broker is away, and the current health at once on reconnect', () => {
    const hub = rig();
    hub.publisher.sample();
    hub.setState('disconnected');
    hub.advance(HEALTH_REFRESH_MS * 2);
    hub.set({ healthy: false, problems: ['the API is failing: timeout'] });
    expect(hub.publisher.sample()).toBe(false);
    hub.setState('connected');
    hub.advance(1_000);
    // Unchanged since the last publish, yet published again: a broker without persistence lost it.
    hub.set({ healthy: true, problems: [] });
    expect(hub.publisher.sample()).toBe(true);
    expect(hub.published).toHaveLength(2);
    expect(hub.published[1]!.payload.healthy).toBe(true);
  });
});
