// Figure 2, bulk pairing: 300 buttons announced into one pairing window, against the simulator
// answering every request after 20 ms. Elapsed time, from the first announcement to the 300th
// outcome on the control socket (each sent once the link is durably stored), versus the ideal
// ceil(300 / PANIC_PAIR_API_CONCURRENCY) x 20 ms. Target 1.3 or less, with exactly 300 POSTs
// (one per button), one subscriptions GET, and never more requests in flight than the concurrency.
//
// The entitlement cache is cold when the window opens (PANIC_PAIR_ENTITLEMENT_TTL=1 and the
// start-up check more than a second old), and GETs are counted from the window's start: the
// burst of 300 must share one check. Each run has a fresh daemon and an empty store; the figure
// is the median of the runs, and the request counts must hold in every run.
import { apiLinkMs, cpuMsOf, median, report, runBench, sleep, startDaemon, startMosquitto, startSimulator, until } from './lib/harness.mjs';
import { announce, buttonIds, mqttClient, openWindow } from './lib/pairing-run.mjs';

const BUTTONS = 300;
const LATENCY_MS = 20;
const CONCURRENCY = 4;
const RUNS = Number(process.env.BENCH_ROUNDS ?? 5);
const PREFIX = 'bench';

await runBench('bulk-pairing', async () => {
  const broker = await startMosquitto();
  const simulator = await startSimulator();
  const client = await mqttClient(broker.url);
  const ideal = Math.ceil(BUTTONS / CONCURRENCY) * LATENCY_MS;
  const runs = [];

  for (let run = 0; run < RUNS; run++) {
    simulator.reset();
    const daemon = await startDaemon({
      apiUrl: simulator.url,
      token: simulator.token,
      mqttUrl: broker.url,
      prefix: PREFIX,
      env: { PANIC_PAIR_API_CONCURRENCY: String(CONCURRENCY), PANIC_PAIR_ENTITLEMENT_TTL: '1' },
    });
    const ready = await until('the start-up entitlement check and the broker', async () => {
      const status = await daemon.status();
      return status.mqtt === 'connected' && status.entitlementCheckedAt !== undefined && status;
    });
    // Past the one-second TTL: the window's burst finds the cache cold.
    await sleep(Math.max(0, Date.parse(ready.entitlementCheckedAt) + 1_200 - Date.now()));

    const window = await openWindow(daemon, 120);
    simulator.reset();
    simulator.setFaults({ latencyMs: LATENCY_MS });
    const logFrom = simulator.requestLog.length;
    const ids = buttonIds(`BULK${run}`, BUTTONS);
    const cpuBefore = cpuMsOf(daemon.pid);
    const started = performance.now();
    await announce(client, PREFIX, ids);
    const outcomes = await window.waitForOutcomes(BUTTONS);
    const elapsed = outcomes[BUTTONS - 1].receivedAt - started;
    // The daemon's own CPU a link (user + system, from /proc): what a slower core multiplies.
    const cpuPerLink = (cpuMsOf(daemon.pid) - cpuBefore) / BUTTONS;
    const stats = simulator.stats();
    await window.close();
    await daemon.stop();

    const posts = Object.values(stats.postsByDevice);
    runs.push({
      elapsed,
      linked: outcomes.filter((outcome) => outcome.ok).length,
      posts: stats.requests.link,
      postedOnce: posts.length === BUTTONS && posts.every((count) => count === 1),
      gets: stats.subscriptionGets,
      maxInFlight: stats.maxInFlight,
      apiMs: apiLinkMs(simulator, logFrom),
      cpuPerLink,
    });
    process.stderr.write(`bulk-pairing run ${run + 1}: ${JSON.stringify(runs.at(-1))}\n`);
  }

  const every = (check) => runs.every(check);
  report({
    figure: 'bulk pairing: 300 links / ideal ceil(300/4) x 20 ms',
    ratio: median(runs.map((run) => run.elapsed)) / ideal,
    target: { op: '<=', value: 1.3 },
    detail:
      `median of ${RUNS} runs: ${median(runs.map((run) => run.elapsed)).toFixed(0)} ms vs ideal ${ideal} ms; ` +
      `POSTs ${runs.map((run) => run.posts).join('/')}, GETs from the window's start (cache cold) ${runs.map((run) => run.gets).join('/')}, ` +
      `max in flight ${Math.max(...runs.map((run) => run.maxInFlight))}; the simulator's own time a POST, median ${median(runs.map((run) => run.apiMs)).toFixed(1)} ms; ` +
      `the daemon's CPU a link, median ${median(runs.map((run) => run.cpuPerLink)).toFixed(2)} ms`,
    checks: {
      'all 300 linked': every((run) => run.linked === BUTTONS),
      'exactly 300 POSTs, one per button': every((run) => run.posts === BUTTONS && run.postedOnce),
      'one subscriptions GET': every((run) => run.gets === 1),
      [`never more than ${CONCURRENCY} in flight`]: every((run) => run.maxInFlight <= CONCURRENCY),
    },
  });
});
