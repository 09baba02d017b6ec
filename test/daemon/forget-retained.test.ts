import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { observe, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// `forget` clears the retained `<prefix>/devices/<id>` on the broker (an empty retained payload),
// so that a subscriber starting now, or after the hub restarts, no longer sees a button the hub
// does not hold. Real daemon, real mosquitto.

/** Every message published before this call has reached the observer (one connection, in order). */
async function settle(watcher: MqttObserver, prefix: string): Promise<void> {
  const topic = `${prefix}/test-marker/${randomBytes(4).toString('hex')}`;
  await watcher.client.publishAsync(topic, 'marker', { qos: 1 });
  await waitFor(() => watcher.messages.some((message) => message.topic === topic), { what: 'the marker to come back' });
}

/** What a subscriber starting now reads as retained on `<prefix>/devices/<id>`. */
async function retainedState(hub: DaemonHarness, deviceId: string): Promise<string[]> {
  const fresh = await observe(hub.broker.url, [`${hub.prefix}/devices/${deviceId}`, `${hub.prefix}/test-marker/#`]);
  try {
    await settle(fresh, hub.prefix);
    return fresh.payloads(`${hub.prefix}/devices/${deviceId}`);
  } finally {
    await fresh.close();
  }
}

describe('forget and the retained device state', () => {
  let hub: DaemonHarness;
  beforeAll(async () => {
    hub = await startHarness();
  });
  afterAll(() => hub?.close());

  it('clears <prefix>/devices/<id> on forget, and a restart does not bring it back', async () => {
    await hub.announceSeen('GONE-1');
    const pair = await hub.cli(['pair', 'GONE-1']);
    expect(pair.code, pair.stderr).toBe(0);
    await waitFor(async () => (await retainedState(hub, 'GONE-1')).some((payload) => payload.includes('"linked"')), {
      what: 'the retained linked state of GONE-1',
    });

    const watcher = await observe(hub.broker.url, `${hub.prefix}/devices/GONE-1`);
    try {
      const forget = await hub.cli(['forget', 'GONE-1']);
      expect(forget.code, forget.stderr).toBe(0);
      await waitFor(() => watcher.payloads(`${hub.prefix}/devices/GONE-1`).includes(''), { what: 'the empty retained state of GONE-1' });
    } finally {
      await watcher.close();
    }
    expect(await retainedState(hub, 'GONE-1')).toEqual([]);

    expect(await hub.stop()).toEqual({ code: 0, signal: null });
    await hub.restart();
    expect(await retainedState(hub, 'GONE-1')).toEqual([]);
  });
});
