// Figure 1, ingest: announcements a second through the daemon versus a bare mqtt.js subscriber in
// its own process, on the same mosquitto, from the same publisher, 150,000 messages each. The two
// are measured in alternating rounds (side by side in time, never at once: two subscribers would
// share the two cores) and the figure is the median of the rounds' ratios. Target 0.9 or more.
//
// Each run: the clock starts when the publisher is told to go and stops when the subscriber has
// counted every message (the bare one says so on stdout; the daemon's `status` counters are
// polled every 20 ms). The two topics have the same length, so the bytes on the wire are equal.
import path from 'node:path';
import { lineChannel, median, report, ROOT, runBench, startChild, startDaemon, startMosquitto, startPublisher, startSimulator, until } from './lib/harness.mjs';

const MESSAGES = 150_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DAEMON_PREFIX = 'bench';
const BARE_PREFIX = 'plain';

await runBench('ingest', async () => {
  const broker = await startMosquitto();
  const simulator = await startSimulator();
  const daemon = await startDaemon({ apiUrl: simulator.url, token: simulator.token, mqttUrl: broker.url, prefix: DAEMON_PREFIX });
  await until('the daemon to connect to the broker', async () => (await daemon.status()).mqtt === 'connected');

  const bareChild = startChild(process.execPath, [path.join(ROOT, 'bench', 'lib', 'bare-subscriber.mjs'), broker.url, `${BARE_PREFIX}/announce`], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const bare = lineChannel(bareChild);
  await bare.next('ready', 15_000);
  const publisher = await startPublisher(broker);

  async function runBare(round) {
    await publisher.prepare(`${BARE_PREFIX}/announce`, MESSAGES, `B${round}`);
    bare.send(`expect ${MESSAGES}`);
    const started = performance.now();
    const done = bare.next('done');
    await publisher.go();
    await done;
    return MESSAGES / ((performance.now() - started) / 1000);
  }

  async function runDaemon(round) {
    await publisher.prepare(`${DAEMON_PREFIX}/announce`, MESSAGES, `D${round}`);
    const before = (await daemon.status()).counters.announcements;
    const started = performance.now();
    await publisher.go();
    await until('the daemon to count every announcement', async () => (await daemon.status()).counters.announcements >= before + MESSAGES, {
      timeoutMs: 120_000,
      everyMs: 20,
    });
    return MESSAGES / ((performance.now() - started) / 1000);
  }

  const ratios = [];
  const bareRates = [];
  const daemonRates = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so a drift in background load falls on both alike.
    let bareRate;
    let daemonRate;
    if (round % 2 === 0) {
      bareRate = await runBare(round);
      daemonRate = await runDaemon(round);
    } else {
      daemonRate = await runDaemon(round);
      bareRate = await runBare(round);
    }
    bareRates.push(bareRate);
    daemonRates.push(daemonRate);
    ratios.push(daemonRate / bareRate);
    process.stderr.write(`ingest round ${round + 1}: bare ${bareRate.toFixed(0)}/s, daemon ${daemonRate.toFixed(0)}/s\n`);
  }
  const status = await daemon.status();
  report({
    figure: 'ingest: daemon / bare mqtt.js subscriber, msgs/s',
    ratio: median(ratios),
    target: { op: '>=', value: 0.9 },
    detail: `median of ${ROUNDS} rounds of ${MESSAGES} msgs; daemon ${median(daemonRates).toFixed(0)}/s, bare ${median(bareRates).toFixed(0)}/s; dropped ${status.counters.dropped}`,
    checks: { 'no announcement dropped as invalid': status.counters.dropped === 0 },
  });
  await publisher.stop();
  bare.send('quit');
});
