// Fleet on a cluster: `panic-pair fleet --json` against three NATS Server nodes holding --hubs
// hubs' retained health, and how long a killed node's bridges
// take to be carried by the others.
//
//   node bench/fleet-cluster.mjs [--hubs 100000] [--runs 3] [--bridges 12]
//
// Three nats-server nodes on loopback (test/support/nats-cluster.mjs: JetStream, MQTT,
// stream_replicas 3) take --hubs hubs' retained bridge state, status and health, published by
// a few clients (not a connection a hub: the nodes' MQTT side is not what is measured here).
// Then `fleet --json --central A,B,C --central-protocol mqttv311` runs --runs times, each timed
// from spawn to exit with its peak RSS (VmHWM), and the nodes' own RSS is read. Last, --bridges
// hubs' mosquitto, each running the bridge `bridge-config` printed, are connected; the node most
// of them start on is killed (-9), and the time until every bridge it carried says `1` again on
// its hub's broker (its notification) is the failover figure. Run `npm run build` first.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { connectAsync } from 'mqtt';
import { findNatsServer, startNatsCluster } from '../test/support/nats-cluster.mjs';
import { BIN, dist, mb, median, onCleanup, report, runBench, startChild, startMosquitto, until } from './lib/harness.mjs';
import { seedRetainedFleet } from './lib/retained-seed.mjs';

const { values } = parseArgs({ options: { hubs: { type: 'string', default: '100000' }, runs: { type: 'string', default: '3' }, bridges: { type: 'string', default: '12' } } });
const HUBS = Number(values.hubs);
const RUNS = Number(values.runs);
const BRIDGES = Number(values.bridges);
for (const [name, value] of [['--hubs', HUBS], ['--runs', RUNS], ['--bridges', BRIDGES]]) {
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a whole number above 0`);
}
// The goals on this machine: 100,000 hubs read in 15 s or less, with 300 MB or less.
const SECONDS_TARGET = 15;
const RSS_TARGET_MB = 300;
/** Seeding clients: NATS stores a client's retained messages one at a time, so they are many. */
const SEEDERS = 12;
const PROTOCOL = ['--central-protocol', 'mqttv311'];

const round = (value, digits = 2) => Number(value.toFixed(digits));

function statusOf(pid, field) {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** One `fleet` run: seconds from spawn to exit, peak RSS, exit code and stdout. */
async function runFleet(central) {
  const started = performance.now();
  const child = startChild(process.execPath, [BIN, 'fleet', '--central', central, ...PROTOCOL, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, statusOf(child.pid, 'VmHWM'))), 10);
  const code = await new Promise((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearInterval(sampler);
  return { seconds: (performance.now() - started) / 1000, peak, code, stdout, stderr };
}

/** --bridges hubs, each a mosquitto with the printed cluster bridge and its retained topics. */
async function startBridges(cluster) {
  const { turnedFor } = await dist('fleet/central-addresses.js');
  const { spawnSync } = await import('node:child_process');
  const bridges = [];
  for (let i = 0; i < BRIDGES; i++) {
    const hubId = `bridge-${i}`;
    const printed = spawnSync(process.execPath, [BIN, 'bridge-config', '--central', cluster.addresses(), ...PROTOCOL, '--hub-id', hubId, '--mqtt-prefix', 'pp'], { encoding: 'utf8', env: { PATH: process.env.PATH, PANIC_PAIR_CONFIG: '' } });
    if (printed.status !== 0) throw new Error(`bridge-config exited ${printed.status}: ${printed.stderr}`);
    const broker = await startMosquitto({ extraConfig: printed.stdout });
    const local = await connectAsync(broker.url, { reconnectPeriod: 0 });
    const states = [];
    local.on('message', (_topic, payload) => states.push({ at: performance.now(), up: payload.toString() === '1' }));
    await local.subscribeAsync(`hubs/${hubId}/bridge/state`, { qos: 1 });
    bridges.push({ hubId, first: turnedFor(hubId, cluster.nodes)[0], broker, local, states });
  }
  await until('every bridge connected', () => bridges.every((bridge) => bridge.states.at(-1)?.up === true), { timeoutMs: 60_000, everyMs: 100 });
  return bridges;
}

await runBench(
  'fleet-cluster',
  async () => {
    const nats = findNatsServer();
    if (nats === undefined) throw new Error('nats-server is not installed (apt-get install nats-server)');
    const cluster = await startNatsCluster(nats);
    onCleanup(() => cluster.stop());
    const step = (text) => process.stderr.write(`fleet-cluster: ${text}\n`);
    let ending = false;
    for (const node of cluster.nodes) {
      node.child.once('exit', (code, signal) => {
        if (!ending && signal !== 'SIGKILL') process.stderr.write(`nats-server ${node.name} exited (${signal ?? code}): ${node.output.trim().split('\n').slice(-5).join(' | ')}\n`);
      });
    }
    const central = cluster.addresses();
    const floor = await runFleet(central);
    step(`cluster ready; seeding ${HUBS} hubs' retained topics`);

    const health = JSON.stringify({
      version: '0.1.0', healthy: true, problems: [], ble: 'scanning', mqtt: 'connected',
      devices: { total: 3, linked: 3, linking: 0, rejected: 0, failed: 0 }, uptimeSeconds: 86_412, at: new Date().toISOString(),
      buttons: { linked: 3, online: 3, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 },
    });
    let shown = 0;
    const seed = await seedRetainedFleet({
      addresses: cluster.nodes.map((node) => node.address),
      hubs: HUBS,
      clients: SEEDERS,
      health,
      onProgress: (sent) => {
        if (sent - shown < 30_000) return;
        shown = sent;
        process.stderr.write(`seeded ${sent} of ${HUBS * 3} retained messages\n`);
      },
    });
    step(`seeded in ${seed.seconds.toFixed(1)} s; reading`);
    await until('every hub listed', async () => {
      const run = await runFleet(central);
      return run.code !== 2 && JSON.parse(run.stdout).length === HUBS;
    }, { timeoutMs: 120_000, everyMs: 1_000 });

    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await runFleet(central));
    const nodesRss = cluster.nodes.map((node) => ({ node: node.name, rss: mb(statusOf(node.child.pid, 'VmRSS')), peak: mb(statusOf(node.child.pid, 'VmHWM')) }));

    step(`read ${RUNS} times; starting ${BRIDGES} bridged hubs`);
    const bridges = await startBridges(cluster);
    const counts = new Map();
    for (const bridge of bridges) counts.set(bridge.first, (counts.get(bridge.first) ?? 0) + 1);
    const victim = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
    const carried = bridges.filter((bridge) => bridge.first === victim);
    const killedAt = performance.now();
    await cluster.kill(victim);
    step(`killed ${victim.name}, the first node of ${carried.length} bridges; waiting for them to move`);
    await until('every bridge of the killed node up again', () => carried.every((bridge) => bridge.states.some((state) => state.at > killedAt && !state.up) && bridge.states.at(-1)?.up === true), { timeoutMs: 180_000, everyMs: 50 });
    const back = carried.map((bridge) => (bridge.states.findLast((state) => state.up).at - killedAt) / 1000);
    const afterKill = await runFleet(central);
    for (const bridge of bridges) await bridge.local.endAsync(true);
    ending = true;

    const listed = runs.map((run) => (run.stdout === '' ? 0 : JSON.parse(run.stdout).length));
    const seconds = median(runs.map((run) => run.seconds));
    const peak = Math.max(...runs.map((run) => run.peak));
    const detail = {
      hubs: HUBS,
      retainedMessages: HUBS * 3,
      seed: { seconds: round(seed.seconds, 1), perSecond: Math.round((HUBS * 3) / seed.seconds), reconnects: seed.reconnects },
      runsSeconds: runs.map((run) => round(run.seconds)),
      // Each run's own peak, and what it said on stderr: a node passed over (NATS cut it as a
      // slow consumer, say) means a second read, and its peak is not a single read's.
      runs: runs.map((run) => ({ seconds: round(run.seconds), peakRss: mb(run.peak), stderr: run.stderr.trim().slice(0, 300) })),
      medianSeconds: round(seconds),
      peakRss: mb(peak),
      floor: { seconds: round(floor.seconds), peakRss: mb(floor.peak) },
      nodes: nodesRss,
      failover: { bridges: BRIDGES, onKilledNode: carried.length, secondsUntilEachBack: back.map((value) => round(value, 1)), lastBackSeconds: round(Math.max(...back), 1) },
      afterKill: { seconds: round(afterKill.seconds), listed: afterKill.stdout === '' ? 0 : JSON.parse(afterKill.stdout).length - BRIDGES },
    };
    process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
    const checks = {
      'every run lists every hub': listed.every((count) => count === HUBS),
      'an empty cluster is exit 1': floor.code === 1,
      'every hub listed with a node killed': afterKill.code !== 2 && detail.afterKill.listed === HUBS,
    };
    report({ figure: `fleet --json on a 3-node NATS cluster: seconds to answer, ${HUBS} hubs`, ratio: round(seconds), target: { op: '<=', value: SECONDS_TARGET }, detail, checks });
    report({ figure: `fleet --json on a 3-node NATS cluster: peak RSS MB, ${HUBS} hubs`, ratio: round(peak / 1024 / 1024, 1), target: { op: '<=', value: RSS_TARGET_MB }, detail: { floor: detail.floor, nodes: nodesRss }, checks });
    report({ figure: 'a killed NATS node: seconds until its bridges are carried by another', ratio: detail.failover.lastBackSeconds, target: { op: '<=', value: 60 }, detail: detail.failover, checks: {} });
  },
  { timeoutMs: 25 * 60_000 },
);
