// The running daemon attacked from outside: hostile MQTT on every
// topic it reads, control-socket clients, page requests and slow clients, and a hostile API
// behind a proxy while `pair` runs in a loop with new ids, against one daemon with linked
// buttons; one side alone or all at once. Afterwards the daemon answers `status`, the buttons
// linked before are linked as before, and no secret appears in its logs. Its RSS, sampled every
// half second, never rises more than 50 MB over the start during the attack, and within 2 minutes
// of its end is back within 20 MB of it (the lowest reading). Where the memory went at the peak
// (V8's heap, external memory, array buffers) is read by bench/lib/memory-probe.mjs.
//
//   node bench/hostile.mjs [--side mqtt|socket|page|api|all] [--seconds 120] [--rest 120] [--seed N]
//                          [--snapshots DIR]
//
// --snapshots: a V8 heap snapshot of the daemon at the attack's end and at the end of the rest, in
// DIR (open them in Chrome's DevTools, Memory tab); they take seconds and skew the RSS figures.
// The daemon runs with the node options its unit gives it (systemd/panic-pair.service's
// NODE_OPTIONS), as on a hub; BENCH_DAEMON_NODE_ARGS tries another V8 setting instead (e.g.
// --max-semi-space-size=1, or '' for none), MALLOC_ARENA_MAX set here is passed to the daemon. Opt-in (not in `npm run bench`): it runs for minutes. Bounded in
// time, loopback only. Run `npm run build` first.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../test/support/loopback.mjs';
import { mb, report, runBench, sleep, startDaemon, startMosquitto, startSimulator, tempDir } from './lib/harness.mjs';
import { pairLoop, startHostileApi } from './lib/hostile-api.mjs';
import { hostileMessage, mqttSettings } from './lib/hostile-mqtt.mjs';
import { attackPage } from './lib/hostile-page.mjs';
import { seed } from './lib/hostile-random.mjs';
import { attackSocket } from './lib/hostile-socket.mjs';
import { memorySplit, PROBE, watchRss } from './lib/memory-watch.mjs';
import { announce, buttonIds, mqttClient, openWindow } from './lib/pairing-run.mjs';

// What the unit runs node with, unless the run asks for something else.
if (process.env.BENCH_DAEMON_NODE_ARGS === undefined) {
  const unit = readFileSync(path.join(import.meta.dirname, '..', 'systemd', 'panic-pair.service'), 'utf8');
  const options = /^Environment="?NODE_OPTIONS=([^"\n]*)"?$/m.exec(unit)?.[1];
  if (options !== undefined) process.env.BENCH_DAEMON_NODE_ARGS = options;
}

const SIDES = ['mqtt', 'socket', 'page', 'api'];
const { values } = parseArgs({
  options: { snapshots: { type: 'string' }, side: { type: 'string', default: 'all' }, seconds: { type: 'string', default: '120' }, rest: { type: 'string', default: '120' }, seed: { type: 'string', default: '29' } },
});
const sides = values.side === 'all' ? SIDES : [values.side];
if (!sides.every((side) => SIDES.includes(side))) throw new Error(`--side is one of ${SIDES.join(', ')} or all`);
const SECONDS = Number(values.seconds);
const REST_SECONDS = Number(values.rest);
const PREFIX = 'hostile';
const LINKED = 5;
const PEAK_BOUND_MB = 50;
const REST_BOUND_MB = 20;
const CODE = `hostile-code-${randomBytes(6).toString('hex')}`;
seed(values.seed);

await runBench(
  'hostile',
  async () => {
    const dir = tempDir('hostile');
    const codeFile = path.join(dir, 'installer-code');
    writeFileSync(codeFile, `${CODE}\n`, { mode: 0o600 });
    const probeFile = path.join(dir, 'memory.jsonl');
    const port = await freePort();
    const broker = await startMosquitto();
    const simulator = await startSimulator();
    const api = await startHostileApi(simulator.url);
    const daemon = await startDaemon({
      apiUrl: api.url,
      token: simulator.token,
      mqttUrl: broker.url,
      prefix: PREFIX,
      nodeArgs: ['--import', PROBE, ...(values.snapshots === undefined ? [] : ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${values.snapshots}`])],
      env: {
        PANIC_PAIR_WEB_LISTEN: `127.0.0.1:${port}`,
        PANIC_PAIR_WEB_CODE_FILE: codeFile,
        PANIC_PAIR_ENTITLEMENT_TTL: '2',
        PANIC_PAIR_LOG_LEVEL: 'debug',
        BENCH_MEMORY_PROBE_FILE: probeFile,
        ...mqttSettings(),
        ...(process.env.MALLOC_ARENA_MAX === undefined ? {} : { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX }),
      },
    });
    await daemon.ready();

    // The buttons linked before the attack: they must end linked exactly so.
    const client = await mqttClient(broker.url);
    const linked = buttonIds('LINKED', LINKED);
    const window = await openWindow(daemon, 30);
    await announce(client, PREFIX, linked);
    await window.waitForOutcomes(LINKED);
    await window.close();
    const storeFile = path.join(daemon.dir, 'pairings.json');
    const linkedRecords = () => JSON.parse(readFileSync(storeFile, 'utf8')).devices.filter((record) => linked.includes(record.deviceId));
    const before = JSON.stringify(linkedRecords());
    await sleep(5_000);

    const counts = { mqtt: 0, control: 0, page: 0, api: 0 };
    const start = daemon.rssBytes();
    const watch = watchRss(daemon.pid);
    const from = Date.now();
    const until = from + SECONDS * 1000;
    const attacks = {
      mqtt: async () => {
        while (Date.now() < until) {
          for (let i = 0; i < 20; i++) {
            const message = hostileMessage(PREFIX, linked);
            client.publish(message.topic, message.payload);
          }
          counts.mqtt += 20;
          await sleep(5);
        }
      },
      socket: () => attackSocket(daemon.socketPath, linked, until, counts),
      page: () => attackPage(port, until, counts),
      api: () => {
        api.hostile(true);
        return pairLoop(daemon, (deviceId) => client.publish(`${PREFIX}/announce`, JSON.stringify({ deviceId })), until, counts).finally(() => api.hostile(false));
      },
    };
    await Promise.all(sides.map((side) => attacks[side]()));
    const peak = watch.peak();
    const attackEnd = Date.now();
    const snapshot = () => (values.snapshots === undefined ? undefined : process.kill(daemon.pid, 'SIGUSR2'));
    snapshot();

    // At rest: the lowest reading within REST_SECONDS of the end. V8 gives back what a burst grew
    // only at its idle collection, some seconds to a minute and a half later (bench/memory.mjs).
    watch.reset();
    await sleep(REST_SECONDS * 1000);
    const rest = watch.lowest();
    watch.stop();
    snapshot();
    // The snapshot is written synchronously by the daemon: status answers once it is done.
    if (values.snapshots !== undefined) await daemon.status();

    const status = await daemon.status();
    const log = readFileSync(daemon.log, 'utf8');
    const split = memorySplit(probeFile, from, attackEnd);
    const over = (bytes) => Math.round(((bytes - start) / 1048576) * 10) / 10;
    const checks = {
      'the daemon answers status': typeof status === 'object' && status !== null,
      'the buttons linked before are linked as before': JSON.stringify(linkedRecords()) === before,
      'no secret in the logs': !log.includes(simulator.token) && !log.includes(CODE),
    };
    const what = `hostile (${sides.join(' + ')}, ${SECONDS} s)`;
    const parts = split === undefined ? 'no memory split' : `at the start heap ${mb(split.atStart.heapUsed)} of ${mb(split.atStart.heapTotal)}, external ${mb(split.atStart.external)}, array buffers ${mb(split.atStart.arrayBuffers)}; at the peak heap ${mb(split.atPeak.heapUsed)} of ${mb(split.atPeak.heapTotal)}, external ${mb(split.atPeak.external)}, array buffers ${mb(split.atPeak.arrayBuffers)}; highest heap ${mb(split.peaks.heapTotal)}, external ${mb(split.peaks.external)}, array buffers ${mb(split.peaks.arrayBuffers)}`;
    const detail = `${counts.mqtt} MQTT messages, ${counts.control} control clients, ${counts.page} page requests, ${counts.api} pairs against the hostile API (${api.counts.answered} answered by it, ${api.counts.forwarded} forwarded); RSS start ${mb(start)}, peak ${mb(peak)}, at rest ${mb(rest)}; ${parts}; MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? 'unset'}, node args: ${process.env.BENCH_DAEMON_NODE_ARGS ?? 'none'}`;
    report({ figure: `${what}: RSS peak over the start, MB`, ratio: over(peak), target: { op: '<=', value: PEAK_BOUND_MB }, detail, checks });
    report({ figure: `${what}: RSS at rest within ${REST_SECONDS} s over the start, MB`, ratio: over(rest), target: { op: '<=', value: REST_BOUND_MB }, detail: `RSS start ${mb(start)}, at rest ${mb(rest)}`, checks });
    if (over(peak) > PEAK_BOUND_MB || over(rest) > REST_BOUND_MB || Object.values(checks).some((ok) => !ok)) process.exitCode = 1;
  },
  { timeoutMs: (SECONDS + REST_SECONDS + 180) * 1000 },
);
