// Figure 4, memory: the daemon's RSS, idle, after 300,000 announcements of distinct unknown ids
// and 300 links, versus a node process that only imports mqtt, got, pino, zod and env-var (the
// daemon's heavy dependencies), idle too. Target 1.25 or less: the daemon's own state is small
// and bounded. Both are read from /proc once they have idled and their RSS has settled.
import { cpuMsOf, mb, report, ROOT, rssOf, runBench, sleep, startChild, startDaemon, startMosquitto, startPublisher, startSimulator, until } from './lib/harness.mjs';
import { announce, buttonIds, mqttClient, openWindow } from './lib/pairing-run.mjs';

const ANNOUNCEMENTS = 300_000;
const LINKS = 300;
const PREFIX = 'bench';
const BASELINE = "await Promise.all(['mqtt', 'got', 'pino', 'zod', 'env-var'].map((name) => import(name))); setInterval(() => {}, 60_000);";

/** Waits for a process to idle: its CPU time still for 2 s, then RSS steady (within 1 %) for 3 s; at most 40 s. */
async function settledRss(pid) {
  const deadline = Date.now() + 40_000;
  let cpu = cpuMsOf(pid);
  let quietSince = Date.now();
  const samples = [];
  while (Date.now() < deadline) {
    await sleep(500);
    const now = cpuMsOf(pid);
    if (now - cpu > 20) quietSince = Date.now();
    cpu = now;
    samples.push({ at: Date.now(), rss: rssOf(pid) });
    const recent = samples.filter((sample) => sample.at >= Date.now() - 3_000);
    const steady = recent.length >= 6 && Math.max(...recent.map((s) => s.rss)) <= Math.min(...recent.map((s) => s.rss)) * 1.01;
    if (Date.now() - quietSince >= 2_000 && steady) break;
  }
  return samples.at(-1).rss;
}

await runBench('memory', async () => {
  const broker = await startMosquitto();
  const simulator = await startSimulator();
  const daemon = await startDaemon({ apiUrl: simulator.url, token: simulator.token, mqttUrl: broker.url, prefix: PREFIX });
  await until('the daemon to be ready', async () => {
    const status = await daemon.status();
    return status.mqtt === 'connected' && status.entitled === true;
  });
  const baseline = startChild(process.execPath, ['--input-type=module', '-e', BASELINE], { cwd: ROOT, stdio: 'ignore' });
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

  const [daemonRss, baselineRss] = await Promise.all([settledRss(daemon.pid), settledRss(baseline.pid)]);
  const status = await daemon.status();
  if (process.env.BENCH_SMAPS) { const { breakdown } = await import('./out/smaps.mjs'); console.error('daemon', breakdown(daemon.pid), 'baseline', breakdown(baseline.pid)); }
  report({
    figure: 'memory: idle daemon RSS / node importing its libraries',
    ratio: daemonRss / baselineRss,
    target: { op: '<=', value: 1.25 },
    detail:
      `daemon ${mb(daemonRss)} (at start ${mb(rssAtStart)}, right after the flood ${mb(rssAfterFlood)}), baseline ${mb(baselineRss)}; ` +
      `${status.counters.announcements} announcements, ${status.devices.linked} linked`,
    checks: {
      'every announcement counted': status.counters.announcements >= ANNOUNCEMENTS + LINKS,
      '300 linked': outcomes.filter((outcome) => outcome.ok).length === LINKS,
    },
  });
});
