// Fleet read: `panic-pair fleet --json` against a central broker holding --hubs hubs: how long
// it takes to answer and the most memory it holds.
//
//   node bench/fleet-read.mjs [--hubs 10000] [--runs 3]
//
// A central mosquitto at its default limits (max_queued_messages 1000: what a fleet's broker
// runs with unless told otherwise) takes --hubs simulated hubs (bench/lib/simulated-fleet.mjs:
// each a raw MQTT connection with a bridge's client id, will, retained bridge state, status and
// a health with buttons, refreshed every minute at its own phase, so live messages flow while
// `fleet` reads). Then `fleet --json` runs --runs times as an operator runs it, each timed from
// spawn to exit with its peak RSS (VmHWM) read from /proc; a run against an empty broker gives
// the process's own floor. Every run must list every hub, healthy. Run `npm run build` first.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BIN, mb, median, report, runBench, startChild, startMosquitto, until } from './lib/harness.mjs';
import { startSimulatedFleet } from './lib/simulated-fleet.mjs';

const { values } = parseArgs({ options: { hubs: { type: 'string', default: '10000' }, runs: { type: 'string', default: '3' } } });
const HUBS = Number(values.hubs);
const RUNS = Number(values.runs);
for (const [name, value] of [['--hubs', HUBS], ['--runs', RUNS]]) {
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a whole number above 0`);
}
// The goal: "answers in a few seconds and a bounded amount of memory".
const SECONDS_TARGET = 10;

/** Peak resident set (VmHWM) of a process still running, in bytes; 0 once it is gone. */
function peakOf(pid) {
  try {
    return Number(/VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** One `fleet` run: seconds from spawn to exit, peak RSS, exit code and stdout. */
async function runFleet(port, extra = ['--json']) {
  const started = performance.now();
  const child = startChild(process.execPath, [BIN, 'fleet', '--central', `mqtt://127.0.0.1:${port}`, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, peakOf(child.pid))), 10);
  const code = await new Promise((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearInterval(sampler);
  return { seconds: (performance.now() - started) / 1000, peak, code, stdout, stderr };
}

const round = (value, digits = 2) => Number(value.toFixed(digits));

await runBench(
  'fleet-read',
  async () => {
    const empty = await startMosquitto({ extraConfig: 'max_queued_messages 1000' });
    const floor = await runFleet(empty.port);
    await empty.stop();

    const central = await startMosquitto({ extraConfig: 'max_queued_messages 1000' });
    const health = JSON.stringify({
      version: '0.1.0', healthy: true, problems: [], ble: 'scanning', mqtt: 'connected',
      devices: { total: 3, linked: 3, linking: 0, rejected: 0, failed: 0 }, uptimeSeconds: 86_412, at: new Date().toISOString(),
      buttons: { linked: 3, online: 3, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 },
    });
    const fleet = await startSimulatedFleet({ port: central.port, count: HUBS, health, refreshMs: 60_000 });
    // Until the broker holds every hub's three retained messages (the connect storm's publishes settle).
    await until('every retained message stored', async () => {
      const run = await runFleet(central.port);
      return run.code === 0 && JSON.parse(run.stdout).length === HUBS;
    }, { timeoutMs: 60_000, everyMs: 1_000 });

    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await runFleet(central.port));
    const prometheus = await runFleet(central.port, ['--prometheus']);
    fleet.stop();

    const complete = runs.map((run) => {
      const rows = JSON.parse(run.stdout);
      return run.code === 0 && rows.length === HUBS && rows.every((row) => row.state === 'healthy' && row.buttons?.linked === 3);
    });
    const seconds = median(runs.map((run) => run.seconds));
    const peak = Math.max(...runs.map((run) => run.peak));
    const detail = {
      hubs: HUBS,
      retainedMessages: HUBS * 3,
      connectSeconds: round(fleet.connectMs / 1000, 1),
      runsSeconds: runs.map((run) => round(run.seconds)),
      medianSeconds: round(seconds),
      peakRss: mb(peak),
      floor: { seconds: round(floor.seconds), peakRss: mb(floor.peak) },
      perHubKb: round((peak - floor.peak) / 1024 / HUBS, 2),
      prometheus: { seconds: round(prometheus.seconds), peakRss: mb(prometheus.peak), bytes: prometheus.stdout.length },
    };
    process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
    const checks = { 'every run lists every hub, healthy': complete.every(Boolean), 'an empty broker is exit 1': floor.code === 1 };
    report({ figure: `fleet --json: seconds to answer, ${HUBS} hubs`, ratio: round(seconds), target: { op: '<=', value: SECONDS_TARGET }, detail, checks });
    report({ figure: `fleet --json: peak RSS MB, ${HUBS} hubs`, ratio: round(peak / 1024 / 1024, 1), detail: { floor: detail.floor, perHubKb: detail.perHubKb }, checks });
  },
  { timeoutMs: 8 * 60_000 },
);
