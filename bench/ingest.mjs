// Figure 1, ingest: announcements a second through the daemon versus a bare mqtt.js subscriber in
// its own process, on the same mosquitto, from the same publisher, 150,000 messages each. The two
// are measured in alternating rounds (side by side in time, never at once: two subscribers would
// share the two cores) and the figure is the median of the rounds' ratios. Target 0.9 or more.
//
// Each run: the clock starts when the publisher is told to go and stops when the subscriber has
// counted every message; both counts are polled (sparsely, then closely near the end), the bare
// subscriber's over a pipe, the daemon's through `status` counters. The two topics have the same
// length, so the bytes on the wire are equal.
import path from 'node:path';
import { cpuMsOf, lineChannel, median, report, ROOT, runBench, sleep, startChild, startDaemon, startMosquitto, startPublisher, startSimulator, until } from './lib/harness.mjs';

const MESSAGES = 150_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const DAEMON_PREFIX = 'bench';
const BARE_PREFIX = 'plain';

await runBench('ingest', async () => {
  const broker = await startMosquitto();
  const simulator = await startSimulator();
  const daemon = await startDaemon({ apiUrl: simulator.url, token: simulator.token, mqttUrl: broker.url, prefix: DAEMON_PREFIX });
  await until('the daemon to connect to the broker', async () => (await daemon.status()).mqtt === 'connected');

  // BENCH_PROFILE=1 profiles the reference too, for comparing the two profiles function by function.
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', path.join(ROOT, 'bench', 'out'), '--cpu-prof-name', 'bare-subscriber.cpuprofile'] : [];
  const bareChild = startChild(process.execPath, [...profile, path.join(ROOT, 'bench', 'lib', 'bare-subscriber.mjs'), broker.url, `${BARE_PREFIX}/announce`], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const bare = lineChannel(bareChild);
  await bare.next('ready', 15_000);
  const publisher = await startPublisher(broker);

  /**
   * Runs the publisher once and times it until `counted()` has grown by MESSAGES. The counts are
   * polled sparsely while most messages are still to come and closely near the end: a `status`
   * call costs the daemon about half a millisecond of CPU, so polling both every 20 ms took some
   * 3 % of the daemon's time (and almost none of the bare subscriber's) from what was measured.
   */
  async function timeRun(who, counted, pid) {
    const before = await counted();
    const cpu = cpuOf(pid);
    const started = performance.now();
    await publisher.go();
    let last = before;
    let lastChange = performance.now();
    for (;;) {
      const now = await counted();
      const at = performance.now();
      if (now >= before + MESSAGES) break;
      if (now !== last) [last, lastChange] = [now, at];
      // QoS 0: a broker may drop what a slow subscriber cannot take; say so rather than wait.
      if (at - lastChange > 3_000) {
        throw new Error(`${who} counted ${now - before} of ${MESSAGES} announcements, then nothing for 3 s (lost by the broker?)`);
      }
      // Half the time the rest would take at the pace so far, between 2 and 100 ms.
      const done = now - before;
      const rest = done === 0 ? 100 : ((MESSAGES - done) / done) * (at - started);
      await sleep(Math.min(100, Math.max(2, rest / 2)));
    }
    return { rate: MESSAGES / ((performance.now() - started) / 1000), cpu: cpu() };
  }

  async function runBare(round) {
    await publisher.prepare(`${BARE_PREFIX}/announce`, MESSAGES, `B${round}`);
    return timeRun('the bare subscriber', async () => {
      bare.send('count');
      return Number((await bare.next('count')).split(' ')[1]);
    }, bareChild.pid);
  }

  async function runDaemon(round) {
    await publisher.prepare(`${DAEMON_PREFIX}/announce`, MESSAGES, `D${round}`);
    return timeRun('the daemon', async () => (await daemon.status()).counters.announcements, daemon.pid);
  }

  /** CPU milliseconds of the subscriber and of the broker from now until the returned function is called. */
  function cpuOf(pid) {
    const start = [cpuMsOf(pid), cpuMsOf(broker.pid)];
    return () => ({ subscriber: cpuMsOf(pid) - start[0], broker: cpuMsOf(broker.pid) - start[1] });
  }

  const ratios = [];
  const cpuRatios = [];
  const bareRates = [];
  const daemonRates = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so a drift in background load falls on both alike.
    let bareRun;
    let daemonRun;
    if (round % 2 === 0) {
      bareRun = await runBare(round);
      daemonRun = await runDaemon(round);
    } else {
      daemonRun = await runDaemon(round);
      bareRun = await runBare(round);
    }
    bareRates.push(bareRun.rate);
    daemonRates.push(daemonRun.rate);
    ratios.push(daemonRun.rate / bareRun.rate);
    cpuRatios.push(bareRun.cpu.subscriber / daemonRun.cpu.subscriber);
    process.stderr.write(
      `ingest round ${round + 1}: bare ${bareRun.rate.toFixed(0)}/s (cpu ${bareRun.cpu.subscriber} ms, broker ${bareRun.cpu.broker} ms), ` +
        `daemon ${daemonRun.rate.toFixed(0)}/s (cpu ${daemonRun.cpu.subscriber} ms, broker ${daemonRun.cpu.broker} ms)\n`,
    );
  }
  const status = await daemon.status();
  report({
    figure: 'ingest: daemon / bare mqtt.js subscriber, msgs/s',
    ratio: median(ratios),
    target: { op: '>=', value: 0.9 },
    detail:
      `median of ${ROUNDS} rounds of ${MESSAGES} msgs; daemon ${median(daemonRates).toFixed(0)}/s, bare ${median(bareRates).toFixed(0)}/s; ` +
      `CPU a message, bare / daemon: ${median(cpuRatios).toFixed(2)}`,
    checks: { 'no announcement dropped as invalid': status.counters.dropped === 0 },
  });
  await publisher.stop();
  const bareExited = new Promise((resolve) => bareChild.once('exit', resolve));
  bare.send('quit');
  await bareExited;
});
