import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_KEEPALIVE_SECONDS } from '../../src/fleet/bridge.js';
import { KEEPALIVE_SECONDS } from '../../src/mqtt/connection.js';
import type { HealthPayload } from '../../src/mqtt/topics.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { startBridgedHub, type BridgedHub } from '../support/bridged-hub.js';
import { findExecutable } from '../support/installed.js';
import { observe, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// A fleet with the real parts: a central mosquitto, two hubs each with
// its own mosquitto carrying the bridge `panic-pair bridge-config` printed, and a daemon on each
// (the API simulated). Both hubs use the same prefix, as a fleet installed from one image does:
// the central broker tells them apart by hub id alone.

const PREFIX = 'panic-pair';
// The bounds: a dead daemon, and a cut bridge, are seen centrally within their keepalive.
// (A broker may wait 1.5 keepalives for a client that falls silent; a killed process or a stopped
// broker closes its socket, so the will is due at once.)
const DAEMON_WILL_BOUND_MS = KEEPALIVE_SECONDS * 1000;
const BRIDGE_WILL_BOUND_MS = BRIDGE_KEEPALIVE_SECONDS * 1000;

describe.skipIf(findExecutable('mosquitto') === undefined)('two hubs bridged to a central broker', () => {
  let central: TestBroker;
  let fleet: MqttObserver;
  const hubs: BridgedHub[] = [];
  beforeAll(async () => {
    central = await startBroker();
    fleet = await observe(central.url, 'hubs/#');
    for (const hubId of ['hub-a', 'hub-b']) hubs.push(await startBridgedHub(central, hubId, { prefix: PREFIX }));
  }, 90_000);
  afterAll(async () => {
    for (const hub of hubs) await hub.close();
    await fleet?.close();
    await central?.stop();
  });

  const last = (topic: string): string | undefined => fleet.payloads(topic).at(-1);

  it("shows each hub's retained health and status under hubs/<hub-id>/", async () => {
    for (const hubId of ['hub-a', 'hub-b']) {
      await waitFor(() => last(`hubs/${hubId}/status`) === 'online', { what: `${hubId} online centrally` });
      const health = JSON.parse(await waitFor(() => last(`hubs/${hubId}/health`), { what: `${hubId}'s health centrally` })) as HealthPayload;
      expect(health).toMatchObject({ healthy: true, problems: [], mqtt: 'connected' });
    }
    // A dashboard started later reads every hub's health from the central broker's retained copies.
    const dashboard = await observe(central.url, 'hubs/+/health');
    try {
      const retained = await waitFor(() => {
        const topics = dashboard.messages.filter((message) => message.retain).map((message) => message.topic);
        return topics.length === 2 ? topics.sort() : undefined;
      }, { what: "both hubs' retained health" });
      expect(retained).toEqual(['hubs/hub-a/health', 'hubs/hub-b/health']);
    } finally {
      await dashboard.close();
    }
  });

  it('shows a killed daemon offline centrally, by its last will, within the keepalive', async () => {
    const [hubA] = hubs;
    hubA!.daemon.kill('SIGKILL');
    expect((await hubA!.daemon.exited()).signal).toBe('SIGKILL');
    await waitFor(() => last('hubs/hub-a/status') === 'offline', { timeoutMs: DAEMON_WILL_BOUND_MS, what: "hub-a's last will centrally" });
    // The hub's broker and its bridge are fine: only the daemon is gone.
    expect(last('hubs/hub-a/bridge/state')).toBe('1');
    expect(last('hubs/hub-b/status')).toBe('online');
  }, DAEMON_WILL_BOUND_MS + 30_000);

  it("shows a cut bridge by the bridge's own notification, and the other hub stays connected", async () => {
    const hubB = hubs[1]!;
    await hubB.broker.stop();
    await waitFor(() => last('hubs/hub-b/bridge/state') === '0', { timeoutMs: BRIDGE_WILL_BOUND_MS, what: "hub-b's bridge notification 0" });
    // Two hubs never disconnect each other: each bridge connected once and hub-a's never dropped.
    expect(fleet.payloads('hubs/hub-a/bridge/state')).toEqual(['1']);
    expect(fleet.payloads('hubs/hub-b/bridge/state')).toEqual(['1', '0']);
  }, BRIDGE_WILL_BOUND_MS + 30_000);
});
