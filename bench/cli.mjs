// Figure 5, CLI: wall time of `panic-pair status --json` against a running daemon versus
// `node -e 0`, the floor of any node program here. Target 2 or less: the status path imports
// only the control client. The two alternate, 25 runs each after warm-ups; the figure is the
// ratio of the medians.
import { spawnSync } from 'node:child_process';
import { BIN, median, report, runBench, startDaemon, startMosquitto, startSimulator, until } from './lib/harness.mjs';

const RUNS = Number(process.env.BENCH_ROUNDS ?? 25);

function timed(args, env) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  return { ms: performance.now() - started, status: result.status, stdout: result.stdout, stderr: result.stderr };
}

await runBench('cli', async () => {
  const broker = await startMosquitto();
  const simulator = await startSimulator();
  const daemon = await startDaemon({ apiUrl: simulator.url, token: simulator.token, mqttUrl: broker.url });
  await until('the daemon to be healthy', async () => (await daemon.status()).healthy);

  // What an installer's shell has: the runtime dir named, nothing else of the daemon's.
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PANIC_PAIR_RUNTIME_DIR: daemon.dir };
  const status = () => timed([BIN, 'status', '--json'], env);
  const floor = () => timed(['-e', '0'], env);
  for (let i = 0; i < 3; i++) status(), floor();

  const statusTimes = [];
  const floorTimes = [];
  let failures = 0;
  for (let i = 0; i < RUNS; i++) {
    const run = status();
    statusTimes.push(run.ms);
    if (run.status !== 0 || JSON.parse(run.stdout).counters === undefined) failures += 1;
    floorTimes.push(floor().ms);
  }
  report({
    figure: 'CLI: `status --json` / `node -e 0`, wall time',
    ratio: median(statusTimes) / median(floorTimes),
    target: { op: '<=', value: 2 },
    detail: `medians of ${RUNS}: status ${median(statusTimes).toFixed(0)} ms, node -e 0 ${median(floorTimes).toFixed(0)} ms`,
    checks: { 'status exits 0 with counters': failures === 0 },
  });
});
