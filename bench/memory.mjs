// Figure 4, memory: the daemon's RSS, idle, after 300,000 announcements of distinct unknown ids
// and 300 links, versus a node process that only imports mqtt, got, pino, zod and env-var (the
// daemon's heavy dependencies), idle too. Target 1.25 or less: the daemon's own state is small
// and bounded.
//
// "Idle" is once V8 has had its own idle collection after the burst: a memory-reducing
// mark-compact (`Mark-Compact (reduce)` in --trace-gc, which the daemon runs with here, its only
// difference from `panic-pair run`). V8 runs it 8 s to about 100 s after the last collection, so
// this script may wait up to 150 s; until then the heap keeps the young generation and the slack
// the burst grew (the "right after" figure). Both RSS values are read from /proc at the same
// moment; the baseline is the median of three such processes.
import { readFileSync } from 'node:fs';
import { mb, report, runBench, sleep, startDaemon, startDependencyFloor, startMosquitto, startPublisher, startSimulator, until } from './lib/harness.mjs';
import { announce, buttonIds, mqttClient, openWindow } from './lib/pairing-run.mjs';

const ANNOUNCEMENTS = 300_000;
const LINKS = 300;
const PREFIX = 'bench';
const IDLE_BOUND_MS = 150_000;

/** Resolves true once the daemon's log shows a memory-reducing collection after `since` (ms on its clock), false at the bound. */
async function idleCollection(logFile, since) {
  const deadline = Date.now() + IDLE_BOUND_MS;
  while (Date.now() < deadline) {
    const lines = readFileSync(logFile, 'utf8').split('\n');
    const reduced = lines.some((line) => {
      const match = /\]\s+(\d+) ms: Mark-Compact \(reduce\)/.exec(line);
      return match !== null && Number(match[1]) > since;
    });
    if (reduced) return true;
    await sleep(1_000);
  }
  return false;
}

/** Milliseconds since the daemon's V8 started, as --trace-gc counts them: the last GC line's time. */
function lastGcTime(logFile) {
  const times = [...readFileSync(logFile, 'utf8').matchAll(/\]\s+(\d+) ms: /g)].map((match) => Number(match[1]));
  return times.at(-1) ?? 0;
}

await runBench('memory', async () => {
  const broker = await startMosquitto();
  const simulator = await startSimulator();
  const daemon = await startDaemon({ apiUrl: simulator.url, token: simulator.token, mqttUrl: broker.url, prefix: PREFIX, nodeArgs: ['--trace-gc'] });
  await daemon.ready();
  const floor = startDependencyFloor();
  const rssAtStart = daemon.rssBytes();

  const publisher = await startPublisher(broker);
  await publisher.prepare(`${PREFIX}/announce`, ANNOUNCEMENTS, 'MEM');
  await publisher.go();
  await until('the daemon to count every announcement', async () => (await daemon.status()).counters.announcements >= ANNOUNCEMENTS, {
    timeoutMs: 120_000,
    everyMs: 100,
  });
  const rssAfterFlood = daemon.rssBytes();
  await publisher.stop();

  const client = await mqttClient(broker.url);
  const window = await openWindow(daemon, 120);
  await announce(client, PREFIX, buttonIds('MEMLINK', LINKS));
  const outcomes = await window.waitForOutcomes(LINKS);
  await window.close();
  await client.endAsync();
  const rssAfterLinks = daemon.rssBytes();

  const burstEnded = lastGcTime(daemon.log);
  const waitStarted = Date.now();
  const collected = await idleCollection(daemon.log, burstEnded);
  await sleep(3_000);
  const daemonRss = daemon.rssBytes();
  const baselineRss = floor.rss();
  const status = await daemon.status();
  // BENCH_VERBOSE=1: the daemon's last mark-compact collections, as --trace-gc printed them.
  if (process.env.BENCH_VERBOSE) process.stderr.write(readFileSync(daemon.log, 'utf8').split('\n').filter((line) => line.includes('Mark-Compact')).slice(-4).join('\n') + '\n');
  report({
    figure: 'memory: idle daemon RSS / node importing its libraries',
    ratio: daemonRss / baselineRss,
    target: { op: '<=', value: 1.25 },
    detail:
      `daemon ${mb(daemonRss)} idle (at start ${mb(rssAtStart)}, right after the flood ${mb(rssAfterFlood)}, after the links ${mb(rssAfterLinks)}; ` +
      `V8's idle collection ${collected ? `came ${((Date.now() - waitStarted) / 1000 - 3).toFixed(0)} s after the burst` : `had not come within ${IDLE_BOUND_MS / 1000} s`}), ` +
      `baseline ${mb(baselineRss)}; ${status.counters.announcements} announcements, ${status.devices.linked} linked`,
    checks: {
      'every announcement counted': status.counters.announcements >= ANNOUNCEMENTS + LINKS,
      '300 linked': outcomes.filter((outcome) => outcome.ok).length === LINKS,
    },
  });
}, { timeoutMs: 300_000 });
