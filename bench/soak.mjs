// Soak: the daemon under a steady mixed load for minutes (announcements of buttons and strangers,
// invalid messages, targeted pairings, pairing windows, the odd API fault), against the simulator
// and a private mosquitto on loopback. Every --sample-seconds it samples the daemon's RSS and open
// file descriptors (/proc/<pid>/fd); at the end it prints their growth after the warm-up.
//
//   node bench/soak.mjs [--minutes 3] [--sample-seconds 10] [--max-links 50000]
//
// Bounded in time (--minutes) and in count (--max-links: it stops early once that many links are
// made). Linked buttons are forgotten and paired again, so the store stays small and what grows is
// what the daemon keeps, not what it was asked to keep. Run `npm run build` first.
import { readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { mb, mqttClient, report, rssOf, runBench, sleep, startDaemon, startMosquitto, startSimulator } from './lib/harness.mjs';
import { openWindow } from './lib/pairing-run.mjs';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    'sample-seconds': { type: 'string', default: '10' },
    'max-links': { type: 'string', default: '50000' },
  },
});
const MINUTES = Number(values.minutes);
const SAMPLE_MS = Number(values['sample-seconds']) * 1000;
const MAX_LINKS = Number(values['max-links']);
for (const [name, value] of [['--minutes', MINUTES], ['--sample-seconds', SAMPLE_MS], ['--max-links', MAX_LINKS]]) {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number above 0`);
}
const PREFIX = 'soak';
const PAIRERS = 4;
const BUTTONS_PER_PAIRER = 8;
/** Samples taken before this are warm-up: the heap grows to its working size first. */
const WARM_UP_MS = Math.min(30_000, (MINUTES * 60_000) / 4);

const fdsOf = (pid) => readdirSync(`/proc/${pid}/fd`).length;

await runBench(
  'soak',
  async () => {
    const broker = await startMosquitto();
    const simulator = await startSimulator();
    simulator.setFaults({ latencyMs: 20 });
    const daemon = await startDaemon({ apiUrl: simulator.url, token: simulator.token, mqttUrl: broker.url, prefix: PREFIX });
    await daemon.ready();
    const client = await mqttClient(broker.url);
    const started = Date.now();
    const deadline = started + MINUTES * 60_000;
    const tally = { links: 0, pairFailures: 0, windows: 0, windowLinks: 0, strangers: 0, invalid: 0 };
    const done = () => Date.now() >= deadline || tally.links >= MAX_LINKS;
    const announce = (deviceId) => client.publish(`${PREFIX}/announce`, JSON.stringify({ deviceId, rssi: -50 }));

    // Installers pairing buttons one after another; each linked one is forgotten and paired again.
    const pairer = async (n) => {
      for (let round = 0; !done(); round++) {
        const deviceId = `SOAK-P${n}-${round % BUTTONS_PER_PAIRER}`;
        announce(deviceId);
        try {
          await daemon.call({ type: 'pair', deviceId, timeoutMs: 30_000 }, { timeoutMs: 60_000 });
          tally.links++;
        } catch {
          tally.pairFailures++;
        }
        await daemon.call({ type: 'forget', deviceId }, { timeoutMs: 30_000 }).catch(() => undefined);
      }
    };

    // The neighbourhood: strangers never asked for (distinct ids, past the sighting memory's
    // bound) and invalid messages, a few hundred a second.
    const background = async () => {
      for (let n = 0; !done(); n++) {
        for (let i = 0; i < 40; i++) announce(`SOAK-STRANGER-${n}-${i}`);
        for (let i = 0; i < 10; i++) client.publish(`${PREFIX}/announce`, i % 2 ? '{"deviceId": 7' : `{"deviceId":"bad id ${n}"}`);
        tally.strangers += 40;
        tally.invalid += 10;
        // Now and then the API stumbles; the client retries.
        if (n % 50 === 0) simulator.setFaults({ latencyMs: 20, queue: [{ type: 'status', status: 503, route: 'link' }, { type: 'drop', route: 'link' }] });
        await sleep(100);
      }
    };

    // A pairing window every 20 s with a few buttons pressed in it. A window links every button it
    // hears, strangers included; all are forgotten afterwards, to keep the store small.
    const windows = async () => {
      for (let n = 0; !done(); n++) {
        const window = await openWindow(daemon, 3);
        const ids = Array.from({ length: 5 }, (_, i) => `SOAK-W-${i}`);
        for (const deviceId of ids) announce(deviceId);
        await window.waitForOutcomes(ids.length, 30_000).catch(() => undefined);
        tally.windows++;
        tally.windowLinks += window.outcomes.filter((outcome) => outcome.ok).length;
        await window.close();
        const linked = await daemon.call({ type: 'devices' }, { timeoutMs: 30_000 });
        for (const { deviceId } of linked.filter((device) => !device.deviceId.startsWith('SOAK-P'))) {
          await daemon.call({ type: 'forget', deviceId }, { timeoutMs: 30_000 }).catch(() => undefined);
        }
        const wait = Date.now() + 20_000;
        while (!done() && Date.now() < wait) await sleep(500);
      }
    };

    const samples = [];
    const sample = async () => {
      const status = await daemon.status();
      const entry = { s: Math.round((Date.now() - started) / 1000), rss: rssOf(daemon.pid), fds: fdsOf(daemon.pid), ...status.counters, devices: status.devices.total };
      samples.push(entry);
      process.stdout.write(`${String(entry.s).padStart(5)} s  rss ${mb(entry.rss).padStart(9)}  fds ${String(entry.fds).padStart(4)}  announcements ${entry.announcements}  links ${entry.links}  dropped ${entry.dropped}  apiErrors ${entry.apiErrors}  devices ${entry.devices}\n`);
    };
    const sampler = async () => {
      while (!done()) {
        await sample();
        const next = Date.now() + SAMPLE_MS;
        while (!done() && Date.now() < next) await sleep(200);
      }
    };

    process.stdout.write(`soak: ${MINUTES} min, a sample every ${SAMPLE_MS / 1000} s, at most ${MAX_LINKS} links; daemon pid ${daemon.pid}\n`);
    await Promise.all([sampler(), background(), windows(), ...Array.from({ length: PAIRERS }, (_, n) => pairer(n))]);
    await sample();

    const warm = samples.find((entry) => entry.s * 1000 >= WARM_UP_MS) ?? samples[0];
    const last = samples.at(-1);
    const peak = Math.max(...samples.map((entry) => entry.rss));
    const perMinute = (delta) => (delta / Math.max(1, last.s - warm.s)) * 60;
    // RSS saws up and down with garbage collection; its floor in the first and the last third of
    // the run after the warm-up is the steadier sign of growth.
    const after = samples.filter((entry) => entry.s >= warm.s);
    const third = Math.max(1, Math.floor(after.length / 3));
    const floor = (entries) => Math.min(...entries.map((entry) => entry.rss));
    const [floorEarly, floorLate] = [floor(after.slice(0, third)), floor(after.slice(-third))];
    process.stdout.write(
      `\nafter the warm-up (${warm.s} s to ${last.s} s): RSS ${mb(warm.rss)} -> ${mb(last.rss)} (${mb(last.rss - warm.rss)}, ${mb(perMinute(last.rss - warm.rss))} a minute), ` +
        `floor ${mb(floorEarly)} -> ${mb(floorLate)}, peak ${mb(peak)}; open fds ${warm.fds} -> ${last.fds} (${last.fds - warm.fds >= 0 ? '+' : ''}${last.fds - warm.fds})\n` +
        `${tally.links} pairings (${tally.pairFailures} failed), ${tally.windows} windows (${tally.windowLinks} links), ` +
        `${tally.strangers} stranger and ${tally.invalid} invalid announcements\n`,
    );
    report({
      figure: 'soak: RSS after / after the warm-up',
      ratio: last.rss / warm.rss,
      detail: `RSS ${mb(warm.rss)} -> ${mb(last.rss)} (floor ${mb(floorEarly)} -> ${mb(floorLate)}), fds ${warm.fds} -> ${last.fds}, ${tally.links} pairings over ${last.s} s`,
      checks: { 'daemon alive': (await daemon.status()).pid === daemon.pid, 'pairings made': tally.links > 0 },
    });
    await daemon.stop();
    await broker.stop();
  },
  { timeoutMs: MINUTES * 60_000 + 180_000 },
);
