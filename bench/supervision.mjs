// Supervision, two figures:
// - store writes in an hour at rest: 50 linked buttons, each reporting every 2 s, through the
//   supervisor and a real PairingStore on disk, on a fake monotonic clock (an hour in seconds).
//   Target: at most 4 (an SD card's wear).
// - the daemon's RSS with 1,000 linked buttons, each heard once, against the same daemon with an
//   empty store, both read once V8 has collected (informative).
import { mb, report, runBench, sleep, startDaemon, startMosquitto, startSimulator, tempDir, until } from './lib/harness.mjs';
import { announce, mqttClient, seedStore } from './lib/pairing-run.mjs';
import { dist } from './lib/harness.mjs';

const { PairingStore } = await dist('store/index.js');
const { Supervisor, SWEEP_MS } = await dist('supervision/supervisor.js');
const { silentLogger } = await dist('log/logger.js');

const HOUR = 3_600_000;

async function writesAnHour() {
  const dir = tempDir('supervision-store');
  seedStore(dir, 50);
  const store = await PairingStore.open(dir);
  let now = 0;
  const supervisor = new Supervisor({
    on: true, maxSeconds: 7200, batteryLowPercent: 20, profiles: [], sourceUp: () => true,
    save: (section) => store.saveHeard(section), logger: silentLogger(), clock: () => now,
  });
  supervisor.load(store.all(), store.heard());
  const ids = store.all().map((record) => record.deviceId);
  const run = async (until) => {
    while (now < until) {
      now += 1_000;
      if (now % 2_000 === 0) for (const id of ids) supervisor.heard({ deviceId: id, source: 'mqtt', at: now });
      if (now % SWEEP_MS === 0) {
        supervisor.sweep();
        await store.flush();
      }
    }
  };
  await run(60_000); // every button heard and online: that change is saved at once
  const before = store.stats().writes;
  await run(60_000 + HOUR);
  const writes = store.stats().writes - before;
  await supervisor.stop();
  await store.close();
  return writes;
}

async function rssWith(linked, broker, simulator) {
  const dir = tempDir(`supervision-rss-${linked}`);
  seedStore(dir, linked);
  const daemon = await startDaemon({ apiUrl: simulator.url, token: simulator.token, mqttUrl: broker.url, prefix: `rss${linked}`, stateDir: dir, nodeArgs: ['--expose-gc'] });
  await daemon.ready();
  const ids = Array.from({ length: linked }, (_, i) => `STORED-${String(i).padStart(6, '0')}`);
  const client = await mqttClient(broker.url);
  const before = (await daemon.status()).counters.announcements;
  await announce(client, `rss${linked}`, ids);
  await until('every stored button heard', async () => (await daemon.status()).counters.announcements - before >= linked, { timeoutMs: 60_000, everyMs: 100 });
  const status = await daemon.status();
  await client.endAsync();
  await sleep(10_000);
  const rss = daemon.rssBytes();
  await daemon.stop();
  return { rss, buttons: status.buttons };
}

await runBench('supervision', async () => {
  const writes = await writesAnHour();
  process.stderr.write(`supervision: ${writes} store writes in an hour at rest with 50 buttons reporting every 2 s\n`);
  report({ figure: 'supervision: store writes an hour at rest, 50 buttons', ratio: writes, target: { op: '<=', value: 4 }, detail: { buttons: 50, reportEverySeconds: 2 } });

  const broker = await startMosquitto();
  const simulator = await startSimulator();
  const empty = await rssWith(0, broker, simulator);
  const full = await rssWith(1_000, broker, simulator);
  process.stderr.write(`supervision: RSS ${mb(full.rss)} with 1,000 linked buttons heard, ${mb(empty.rss)} with none\n`);
  report({
    figure: 'supervision: daemon RSS with 1,000 linked buttons / with none',
    ratio: Number((full.rss / empty.rss).toFixed(3)),
    detail: { rssMbWith1000: mb(full.rss), rssMbEmpty: mb(empty.rss), buttons: full.buttons },
    checks: { everyButtonOnline: full.buttons.online === 1_000 },
  });
});
