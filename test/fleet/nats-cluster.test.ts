import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { turnedFor } from '../../src/fleet/central-addresses.js';
import type { HubRow } from '../../src/fleet/hub-row.js';
import { startBridgedHub, type BridgedHub } from '../support/bridged-hub.js';
import { fleet, watchFleet, type FleetWatch } from '../support/fleet-reader.js';
import { findExecutable } from '../support/installed.js';
import { startNatsCluster, type NatsCluster, type NatsNode } from '../support/nats-cluster.mjs';
import { waitFor } from '../support/wait.js';

// The central side on a cluster, with the real parts: three NATS Server
// nodes on loopback (JetStream, MQTT, retained messages replicated on all three), and three hubs,
// each its own mosquitto running the bridge `bridge-config --central A,B,C --central-protocol
// mqttv311` printed, and a daemon. One node is killed (-9): no hub is lost from `fleet`, a daemon
// killed meanwhile is seen, and the node, started again, catches up. Two nodes killed: `fleet`
// says the cluster cannot answer (exit 2) and prints no rows.

const nats = findExecutable('nats-server');
const PREFIX = 'panic-pair';
const HUBS = ['hub-a', 'hub-b', 'hub-c'];
const PROTOCOL = ['--central-protocol', 'mqttv311'];
/** A killed node's bridges are carried by another within a minute; and a margin for CI. */
const MOVED_WITHIN_MS = 90_000;

/** `fleet --json` on the nodes given, the first that answers read. */
async function rowsFrom(cluster: NatsCluster, nodes: NatsNode[]): Promise<{ code: number | null; rows: HubRow[]; stderr: string }> {
  const result = await fleet(['--central', cluster.addresses(nodes), ...PROTOCOL, '--json']);
  return { code: result.code, rows: result.stdout === '' ? [] : (JSON.parse(result.stdout) as HubRow[]), stderr: result.stderr };
}

/** Resolves with the rows once `want` holds of them. */
function until(cluster: NatsCluster, nodes: NatsNode[], what: string, want: (rows: Map<string, HubRow>) => boolean, timeoutMs = MOVED_WITHIN_MS): Promise<Map<string, HubRow>> {
  return waitFor(
    async () => {
      const { code, rows } = await rowsFrom(cluster, nodes);
      const byHub = new Map(rows.map((row) => [row.hub, row]));
      return code !== 2 && want(byHub) ? byHub : undefined;
    },
    { timeoutMs, intervalMs: 250, what },
  );
}

const allHealthy = (rows: Map<string, HubRow>): boolean => rows.size === HUBS.length && HUBS.every((hub) => rows.get(hub)?.state === 'healthy' && rows.get(hub)?.bridge === 'up');

describe.skipIf(nats === undefined || findExecutable('mosquitto') === undefined)('a fleet on a three-node NATS Server cluster', () => {
  let cluster: NatsCluster;
  const hubs: BridgedHub[] = [];
  beforeAll(async () => {
    cluster = await startNatsCluster(nats!);
    for (const hubId of HUBS) hubs.push(await startBridgedHub({ address: cluster.addresses() }, hubId, { prefix: PREFIX, bridgeArgs: PROTOCOL }));
  }, 120_000);
  let watch: FleetWatch | undefined;
  afterAll(async () => {
    await watch?.stop('SIGKILL');
    for (const hub of hubs) await hub.close();
    await cluster?.stop();
  });

  it('shows every hub, healthy, on every node', async () => {
    for (const node of cluster.nodes) await until(cluster, [node], `every hub healthy on ${node.name}`, allHealthy);
  }, 4 * MOVED_WITHIN_MS);

  it('with one node killed (-9), lists every hub, and sees a daemon killed meanwhile', async () => {
    // The node hub-a's bridge starts on, so that its bridge must move and its news come by another node.
    const firstOfA = turnedFor('hub-a', cluster.nodes)[0]!;
    const others = cluster.nodes.filter((node) => node !== firstOfA);
    // A watch reading from that node (first in its list): it must move to the next that answers.
    watch = watchFleet(['--central', cluster.addresses([firstOfA, ...others]), ...PROTOCOL]);
    await waitFor(() => HUBS.every((hub) => watch!.rows().some((row) => row.hub === hub && row.state === 'healthy')), {
      timeoutMs: MOVED_WITHIN_MS,
      what: `--watch's first rows, every hub healthy (${watch.stderr()})`,
    });
    const printedBefore = watch.rows().length;
    await cluster.kill(firstOfA);
    // At once: every hub still listed by the two nodes left, with its last health (the dead node
    // never sends the will of a bridge it carried, so no hub turns offline by it).
    const left = await until(cluster, [firstOfA, ...others], 'every hub listed without the killed node', (rows) => rows.size === HUBS.length);
    expect([...left.keys()].sort()).toEqual(HUBS);
    const hubA = hubs[0]!;
    hubA.daemon.kill('SIGKILL');
    expect((await hubA.daemon.exited()).signal).toBe('SIGKILL');
    // hub-a's daemon's last will reaches the cluster once its bridge is on another node.
    const rows = await until(
      cluster,
      [firstOfA, ...others],
      "hub-a offline by its daemon's will, the others healthy, every bridge up",
      (seen) => seen.get('hub-a')?.cause === 'daemon-offline' && seen.get('hub-a')?.bridge === 'up' && ['hub-b', 'hub-c'].every((hub) => seen.get(hub)?.state === 'healthy'),
      MOVED_WITHIN_MS,
    );
    expect(rows.size).toBe(HUBS.length);
    // Each node left says the same.
    for (const node of others) {
      await until(cluster, [node], `hub-a offline on ${node.name}`, (seen) => seen.size === HUBS.length && seen.get('hub-a')?.state === 'offline');
    }
    // The watch moved to a node left, said so, and goes on: hub-a's daemon seen offline, and no
    // other hub lost or turned offline by the move.
    expect(watch.stderr()).toContain(`lost the central broker at ${firstOfA.address}`);
    await waitFor(() => others.some((node) => watch!.stderr().includes(`reading from the central broker at ${node.address} now, in place of ${firstOfA.address}`)), {
      timeoutMs: MOVED_WITHIN_MS,
      what: `--watch on another node (${watch.stderr()})`,
    });
    await waitFor(() => watch!.rows().find((row) => row.hub === 'hub-a' && row.cause === 'daemon-offline'), { timeoutMs: MOVED_WITHIN_MS, what: `hub-a offline in --watch (${watch.stderr()})` });
    const after = watch.rows().slice(printedBefore);
    expect(after.filter((row) => row.hub !== 'hub-a')).toEqual([]);
    expect(await watch.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 2 * MOVED_WITHIN_MS + 120_000);

  it('the killed node, started again, catches up', async () => {
    const node = turnedFor('hub-a', cluster.nodes)[0]!;
    await cluster.start(node);
    const rows = await until(
      cluster,
      [node],
      `${node.name} caught up: hub-a offline, the others healthy`,
      (seen) => seen.size === HUBS.length && seen.get('hub-a')?.cause === 'daemon-offline' && ['hub-b', 'hub-c'].every((hub) => seen.get(hub)?.state === 'healthy'),
    );
    expect([...rows.keys()].sort()).toEqual(HUBS);
  }, 120_000);

  it('with two of three nodes killed, says the cluster cannot answer (exit 2), printing no rows', async () => {
    const [first, second] = cluster.nodes;
    await cluster.kill(first!);
    await cluster.kill(second!);
    const result = await rowsFrom(cluster, cluster.nodes);
    expect(result.code).toBe(2);
    expect(result.rows).toEqual([]);
    expect(result.stderr).toMatch(/the central cluster cannot answer/);
    for (const node of cluster.nodes) expect(result.stderr).toContain(node.address);
  }, 60_000);
});
