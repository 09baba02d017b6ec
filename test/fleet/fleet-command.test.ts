import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowSignature, STALE_AFTER_MS, type HubRow } from '../../src/fleet/hub-row.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { startBridgedHub, type BridgedHub } from '../support/bridged-hub.js';
import { fleet, watchFleet, type FleetWatch, type WatchedRow } from '../support/fleet-reader.js';
import { findExecutable } from '../support/installed.js';
import { observe, publishOnce, type MqttObserver } from '../support/mqtt-observer.js';
import { checkWithPromtool, promtool } from '../support/promtool.js';
import { waitFor } from '../support/wait.js';

// `panic-pair fleet` on a fleet of real parts: a central mosquitto, three
// hubs each with its own mosquitto running the bridge `bridge-config` printed and a daemon. Then a
// daemon is killed, a bridge cut, a daemon made unhealthy (its API token refused), and two hubs
// are simulated by publishing on the central broker: one with a missing button and a low battery,
// one whose health stops coming. `fleet` tells each apart; `--watch` prints each change as it comes.

const PREFIX = 'panic-pair';
const HUBS = ['hub-a', 'hub-b', 'hub-c'];
/** A will or a bridge notification is due at once for a killed process or a stopped broker. */
const CHANGE_MS = 60_000;

function healthOf(fields: Record<string, unknown>): string {
  return JSON.stringify({
    version: '0.2.0', healthy: true, problems: [], ble: 'scanning', mqtt: 'connected',
    devices: { total: 3, linked: 3, linking: 0, rejected: 0, failed: 0 }, uptimeSeconds: 600, at: new Date().toISOString(), ...fields,
  });
}

describe.skipIf(findExecutable('mosquitto') === undefined)('panic-pair fleet on three bridged hubs', () => {
  let central: TestBroker;
  let observer: MqttObserver;
  let watch: FleetWatch | undefined;
  const hubs: BridgedHub[] = [];
  const central_ = (): string[] => ['--central', central.address];

  beforeAll(async () => {
    central = await startBroker();
    observer = await observe(central.url, 'hubs/#');
    for (const hubId of HUBS) hubs.push(await startBridgedHub(central, hubId, { prefix: PREFIX }));
  }, 120_000);
  afterAll(async () => {
    await watch?.stop('SIGKILL');
    for (const hub of hubs) await hub.close();
    await observer?.close();
    await central?.stop();
  });

  const last = (topic: string): string | undefined => observer.payloads(topic).at(-1);
  const watched = (hub: string, state: HubRow['state']): HubRow | undefined => watch!.rows().find((row) => row.hub === hub && row.state === state);

  it('shows all three healthy, with their version, and exits 0', async () => {
    for (const hubId of HUBS) {
      await waitFor(() => last(`hubs/${hubId}/status`) === 'online' && last(`hubs/${hubId}/bridge/state`) === '1' && (JSON.parse(last(`hubs/${hubId}/health`) ?? '{}') as { healthy?: boolean }).healthy === true, {
        timeoutMs: 30_000,
        what: `${hubId} healthy centrally`,
      });
    }
    const json = await fleet([...central_(), '--json']);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as HubRow[];
    expect(rows.map((row) => [row.hub, row.state, row.daemon, row.bridge])).toEqual(HUBS.map((hub) => [hub, 'healthy', 'online', 'up']));
    expect(rows.every((row) => /^\d+\.\d+\.\d+/.test(row.version ?? ''))).toBe(true);
    const text = await fleet(central_());
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^HUB +STATE +VERSION +BUTTONS +WHY$/m);
    expect(text.stdout).toMatch(/^hub-a +healthy +\d+\.\d+\.\d+/m);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('3 hubs: 3 healthy');
  }, 60_000);

  it('tells a killed daemon, a cut bridge, an unhealthy hub, a missing button and a stale hub apart, and --watch prints each as it comes', async () => {
    watch = watchFleet(central_());
    await waitFor(() => HUBS.every((hub) => watched(hub, 'healthy')), { timeoutMs: 30_000, what: `--watch's first rows (${watch.stderr()})` });

    // A dead daemon: its last will says offline; its bridge stays up.
    const [hubA, hubB, hubC] = hubs as [BridgedHub, BridgedHub, BridgedHub];
    hubA.daemon.kill('SIGKILL');
    const a = await waitFor(() => watched('hub-a', 'offline'), { timeoutMs: CHANGE_MS, what: 'hub-a offline in --watch' });
    expect(a).toMatchObject({ cause: 'daemon-offline', daemon: 'offline', bridge: 'up' });
    expect(a.reason).toMatch(/^its daemon went offline \d\d:\d\d \(stopped, or died: its last will\)$/);

    // A cut bridge: its notification says 0, and wins over whatever the daemon's status says
    // centrally (a dead uplink leaves it `online`; a hub broker stopped cleanly, as here, first
    // sends its clients' wills out, so `offline` may come just before).
    await hubB.broker.stop();
    const b = await waitFor(() => watch!.rows().find((row) => row.hub === 'hub-b' && row.cause === 'bridge-down'), { timeoutMs: CHANGE_MS, what: "hub-b's bridge down in --watch" });
    expect(b).toMatchObject({ state: 'offline', bridge: 'down' });
    expect(b.reason).toMatch(/^its bridge went down \d\d:\d\d$/);

    // A real daemon with a problem: its API token rotated away, then refused at its next link.
    hubC.daemon.simulator.setToken('a-token-hub-c-does-not-hold');
    await hubC.daemon.announce('FLEETC1');
    await hubC.daemon.cli(['pair', 'FLEETC1', '--timeout', '20']);
    const c = await waitFor(() => watch!.rows().find((row) => row.hub === 'hub-c' && row.state === 'unhealthy' && /401/.test(row.reason)), {
      timeoutMs: CHANGE_MS,
      what: 'hub-c unhealthy, its token refused, in --watch',
    });
    expect(c).toMatchObject({ cause: 'problems', daemon: 'online', bridge: 'up' });

    // Hubs simulated by their health alone, published on the central broker: a missing button and
    // a low battery (supervision's words), and a hub whose health stops coming 15 s before it is 3
    // minutes old.
    const problems = ['button 7F3A9C missing for 2 h 10 min (last heard 09:14)', 'button 2B4D6F battery 15 % (low)'];
    const buttons = { linked: 3, online: 1, missing: 1, unknown: 0, unsupervised: 1, batteryLow: 1 };
    await publishOnce(central.url, 'hubs/hub-d/health', [healthOf({ healthy: false, problems, buttons })], { retain: true });
    const d = await waitFor(() => watched('hub-d', 'unhealthy'), { timeoutMs: CHANGE_MS, what: 'hub-d unhealthy in --watch' });
    expect(d).toMatchObject({ cause: 'problems', problems, buttons, version: '0.2.0' });
    await publishOnce(central.url, 'hubs/hub-e/health', [healthOf({ at: new Date(Date.now() - STALE_AFTER_MS + 15_000).toISOString() })], { retain: true });
    await waitFor(() => watched('hub-e', 'healthy'), { timeoutMs: CHANGE_MS, what: 'hub-e healthy in --watch' });
    const e = await waitFor(() => watched('hub-e', 'stale'), { timeoutMs: CHANGE_MS, what: 'hub-e stale in --watch, by its timer' });
    expect(e.cause).toBe('health-old');

    // Each change printed as it came, in order for each hub, and no row printed twice unchanged.
    // (A daemon may change its health twice on the way, "the API is failing" then the token: each
    // is a change; and hub-b's will may come just before its bridge's 0.)
    const byHub = new Map<string, WatchedRow[]>();
    for (const row of watch.rows()) byHub.set(row.hub, [...(byHub.get(row.hub) ?? []), row]);
    const steps = (hub: string): string[] => {
      const all = (byHub.get(hub) ?? []).map((row) => `${row.state} ${row.cause}`).filter((step) => !(hub === 'hub-b' && step === 'offline daemon-offline'));
      return all.filter((step, i) => step !== all[i - 1]);
    };
    expect(Object.fromEntries(['hub-a', 'hub-b', 'hub-c', 'hub-d', 'hub-e'].map((hub) => [hub, steps(hub)]))).toEqual({
      'hub-a': ['healthy none', 'offline daemon-offline'],
      'hub-b': ['healthy none', 'offline bridge-down'],
      'hub-c': ['healthy none', 'unhealthy problems'],
      'hub-d': ['unhealthy problems'],
      'hub-e': ['healthy none', 'stale health-old'],
    });
    for (const rows of byHub.values()) {
      const signatures = rows.map((row) => rowSignature(row));
      expect(signatures.filter((signature, i) => signature === signatures[i - 1])).toEqual([]);
    }
    expect(await watch.stop('SIGINT')).toEqual({ code: 0, signal: null });

    // The same, read once: worst first, exit 1.
    const json = await fleet([...central_(), '--json']);
    expect(json.code, json.stderr).toBe(1);
    const rows = JSON.parse(json.stdout) as HubRow[];
    expect(rows.map((row) => `${row.hub} ${row.state} ${row.cause}`)).toEqual([
      'hub-a offline daemon-offline',
      'hub-b offline bridge-down',
      'hub-e stale health-old',
      'hub-c unhealthy problems',
      'hub-d unhealthy problems',
    ]);
    const text = await fleet(central_());
    expect(text.code).toBe(1);
    // Its daemon (with supervision) counts its buttons: none linked here.
    expect(text.stdout).toMatch(/^hub-b +offline +\S+ +no buttons +its bridge is down; last health \d\d:\d\d$/m);
    expect(text.stdout).toMatch(/^hub-d +unhealthy +0\.2\.0 +3 buttons, 1 missing, 1 battery low, 1 unsupervised +button 7F3A9C missing for 2 h 10 min/m);
  }, 5 * 60_000);

  it.skipIf(promtool === undefined)('prints the Prometheus text format that promtool accepts', async () => {
    const result = await fleet([...central_(), '--prometheus']);
    expect(result.code).toBe(1);
    expect(checkWithPromtool(result.stdout)).toEqual({ code: 0, output: '' });
    expect(result.stdout).toContain('panic_pair_hub_up{hub="hub-a"} 0');
    expect(result.stdout).toContain('panic_pair_hub_up{hub="hub-c"} 1');
    expect(result.stdout).toContain('panic_pair_hub_healthy{hub="hub-c"} 0');
    expect(result.stdout).toContain('panic_pair_hub_buttons{hub="hub-d",state="missing"} 1');
    expect(result.stdout).toContain('panic_pair_hub_info{hub="hub-d",version="0.2.0"} 1');
  }, 60_000);
});
