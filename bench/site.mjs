// A site: one hub, Home Assistant discovery on, hearing every linked button every 10 s
// over MQTT from one client, as a care home or a hotel would. Two daemons, one with 100 buttons
// and one with 1,000, each linked in one window, then measured side by side:
// - CPU a report of a linked, supervised button, at each count, and in the same daemon at the
//   same pace a report of a device it does not hold (an unknown button next door's announcement);
// - RSS while linking 1,000 in one window: the peak over the idle daemon (sampled every 100 ms
//   until the daemon is quiet again), and the lowest reading within 2 minutes of the last link
//   (the site's reports going on meanwhile, as they would).
//
// CPU is the daemon's, every thread, from /proc's schedstat (nanoseconds; stat's ticks are 10 ms,
// coarser than a phase's whole cost at 100 buttons). Right after the links every button reports
// once (for some its first report: `unknown` to `online` where the linking report was not kept,
// the battery first known), then rounds, the two daemons alternating which goes first: an idle
// phase, a phase of reports, a phase of unknown announcements. Each phase lasts 10 s (one message
// for every button) and then until the daemon is quiet (under 20 ms of CPU in each of two
// seconds: what the messages left to do is theirs). A message's cost is its phases' CPU beyond
// the idle phases' rate over the same time, divided by the messages: the daemon's own timers (the
// health every second, the sweep every 5 s) are no message's. A report's figure counts every
// report from the first after the links, as a site runs.
//
//   node bench/site.mjs [--rounds 3] [--rest 120]
//
// BENCH_PROFILE=1 writes a CPU profile of each daemon to bench/out/; BENCH_MEMORY_PROBE_FILE=F
// preloads bench/lib/memory-probe.mjs into each daemon (F.100, F.1000). The daemons run with their
// unit's node options (systemd/panic-pair.service), as on a hub, unless BENCH_DAEMON_NODE_ARGS says
// otherwise. Run `npm run build` first.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { mb, median, report, runBench, sleep, startDaemon, startMosquitto, startSimulator } from './lib/harness.mjs';
import { PROBE, watchRss } from './lib/memory-watch.mjs';
import { buttonIds, mqttClient, openWindow } from './lib/pairing-run.mjs';

if (process.env.BENCH_DAEMON_NODE_ARGS === undefined) {
  const unit = readFileSync(path.join(import.meta.dirname, '..', 'systemd', 'panic-pair.service'), 'utf8');
  const options = /^Environment="?NODE_OPTIONS=([^"\n]*)"?$/m.exec(unit)?.[1];
  if (options !== undefined) process.env.BENCH_DAEMON_NODE_ARGS = options;
}

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, rest: { type: 'string', default: '120' } } });
const ROUNDS = Number(values.rounds);
const REST_MS = Number(values.rest) * 1000;
const SMALL = 100;
const LARGE = 1_000;
/** Each button's report interval, and so each phase's length: one report of every button. */
const REPORT_EVERY_MS = 10_000;
/** The daemon's memory bounds under attack (its peak, and back at rest, over where it started),
 * which linking 1,000 buttons is held to as well. */
const PEAK_BOUND_MB = 50;
const REST_BOUND_MB = 20;
/** A second with less CPU than this is quiet (the daemon idles at 1 to 10 ms a second; a CPU
 * profile adds some 25 ms a second). */
const QUIET_NS = (process.env.BENCH_PROFILE ? 60 : 20) * 1e6;
const QUIET_BOUND_MS = 120_000;

/** CPU time of every thread of a process so far, in nanoseconds (/proc/<pid>/task/<tid>/schedstat). */
function cpuNsOf(pid) {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return total;
}

/** Resolves, with the time it took, once the daemon spent under QUIET_NS of CPU in each of two
 * seconds running (or at QUIET_BOUND_MS). */
async function quiet(daemon) {
  const begun = performance.now();
  let last = cpuNsOf(daemon.pid);
  let quietSeconds = 0;
  while (quietSeconds < 2 && performance.now() - begun < QUIET_BOUND_MS) {
    await sleep(1_000);
    const now = cpuNsOf(daemon.pid);
    quietSeconds = now - last < QUIET_NS ? quietSeconds + 1 : 0;
    last = now;
  }
  return performance.now() - begun;
}

/** A report as a button sends it, with its battery: the same each time, a reading changes over days. */
const payloadOf = (deviceId) => `{"deviceId":"${deviceId}","rssi":-60,"battery":90}`;

/**
 * Publishes the payloads over REPORT_EVERY_MS, evenly spread (a 10 ms tick sends what is due),
 * then waits until the daemon is quiet. Resolves with the daemon's CPU from the first message to
 * the quiet, in ns, and that time.
 */
async function phase(site, payloads) {
  const { client, topic, daemon } = site;
  const start = cpuNsOf(daemon.pid);
  const begun = performance.now();
  let sent = 0;
  while (performance.now() - begun < REPORT_EVERY_MS) {
    const due = Math.min(payloads.length, Math.floor(((performance.now() - begun) / REPORT_EVERY_MS) * payloads.length));
    for (; sent < due; sent++) client.publish(topic, payloads[sent]);
    await sleep(10);
  }
  for (; sent < payloads.length; sent++) client.publish(topic, payloads[sent]);
  await quiet(daemon);
  return { cpuNs: cpuNsOf(daemon.pid) - start, ms: performance.now() - begun };
}

/** A daemon with `count` buttons linked in one window, RSS watched from before the window. */
async function startSite(count, broker, simulator) {
  const prefix = `site${count}`;
  const probe = process.env.BENCH_MEMORY_PROBE_FILE;
  const daemon = await startDaemon({
    apiUrl: simulator.url,
    token: simulator.token,
    mqttUrl: broker.url,
    prefix,
    env: { PANIC_PAIR_HOMEASSISTANT: 'true', PANIC_PAIR_LOG_LEVEL: 'warn', ...(probe ? { BENCH_MEMORY_PROBE_FILE: `${probe}.${count}` } : {}) },
    ...(probe ? { nodeArgs: ['--import', PROBE] } : {}),
  });
  await daemon.ready();
  // Idle: the median of five readings a second apart, once start-up has settled.
  await quiet(daemon);
  const readings = [];
  for (let i = 0; i < 5; i++) {
    readings.push(daemon.rssBytes());
    await sleep(1_000);
  }
  const idleRss = median(readings);
  const client = await mqttClient(broker.url);
  const topic = `${prefix}/announce`;
  const reports = buttonIds(`SITE${count}`, count).map(payloadOf);
  const unknown = buttonIds(`NEXTDOOR${count}`, count).map(payloadOf);

  const storeBefore = (await daemon.status()).store;
  const watch = watchRss(daemon.pid, 100);
  const window = await openWindow(daemon, 600);
  const linkStart = performance.now();
  for (const payload of reports) client.publish(topic, payload);
  const outcomes = await window.waitForOutcomes(count, 300_000);
  const linkMs = performance.now() - linkStart;
  await window.close();
  const linkedAt = performance.now();
  // What the links left to do (their saves, Home Assistant's configs read back) is the window's.
  const settleMs = await quiet(daemon);
  const peakRss = watch.peak();
  watch.reset();
  const storeAfter = (await daemon.status()).store;
  const site = {
    count,
    daemon,
    client,
    topic,
    reports,
    unknown,
    watch,
    linkedAt,
    idleRss,
    peakRss,
    linkMs,
    settleMs,
    linked: outcomes.filter((outcome) => outcome.ok).length,
    linkWrites: storeAfter.writes - storeBefore.writes,
    linkBytes: storeAfter.bytesWritten - storeBefore.bytesWritten,
    rounds: [],
  };
  site.first = await phase(site, reports);
  return site;
}

async function round(site) {
  const idle = await phase(site, []);
  const linked = await phase(site, site.reports);
  const stranger = await phase(site, site.unknown);
  site.rounds.push({ idle, linked, stranger });
  const ms = (ns) => `${(ns / 1e6).toFixed(1)} ms`;
  process.stderr.write(`site ${site.count} round ${site.rounds.length}: idle ${ms(idle.cpuNs)} in ${(idle.ms / 1000).toFixed(0)} s; ${site.count} reports ${ms(linked.cpuNs)}; ${site.count} unknown ${ms(stranger.cpuNs)}\n`);
}

/** Microseconds a message: the phases' CPU beyond the idle rate over their time. */
function figures(site) {
  const idles = site.rounds.map((r) => r.idle);
  const idlePerMs = idles.reduce((sum, p) => sum + p.cpuNs, 0) / idles.reduce((sum, p) => sum + p.ms, 0);
  const each = (phases) => phases.reduce((sum, p) => sum + p.cpuNs - idlePerMs * p.ms, 0) / (phases.length * site.count) / 1000;
  return {
    // Every report from the first after the links on, as a site runs (the site's own measure).
    reportUs: each([site.first, ...site.rounds.map((r) => r.linked)]),
    firstUs: each([site.first]),
    laterUs: each(site.rounds.map((r) => r.linked)),
    unknownUs: each(site.rounds.map((r) => r.stranger)),
    idleMsPerSecond: idlePerMs / 1000,
  };
}

await runBench(
  'site',
  async () => {
    const broker = await startMosquitto();
    const simulator = await startSimulator();
    const small = await startSite(SMALL, broker, simulator);
    const large = await startSite(LARGE, broker, simulator);
    for (let r = 0; r < ROUNDS; r++) {
      for (const site of r % 2 === 0 ? [small, large] : [large, small]) await round(site);
    }
    const left = REST_MS - (performance.now() - large.linkedAt);
    if (left > 0) await sleep(left);
    const restRss = large.watch.lowest();
    large.watch.stop();
    small.watch.stop();
    const statuses = [await small.daemon.status(), await large.daemon.status()];

    const us = (value) => `${value.toFixed(1)} us`;
    const lines = [small, large].map((site) => {
      const f = figures(site);
      return `${site.count}: ${us(f.reportUs)} a report (the first after the links ${us(f.firstUs)}, later ones ${us(f.laterUs)}), ${us(f.unknownUs)} an unknown announcement; idle ${f.idleMsPerSecond.toFixed(2)} ms/s`;
    });
    for (const line of lines) process.stderr.write(`site ${line}\n`);
    const detail = lines.join('; ');
    const checks = {
      'every button linked and online': [small, large].every((site, i) => site.linked === site.count && statuses[i].buttons.online === site.count),
    };
    const [f100, f1000] = [figures(small), figures(large)];
    // At 10 messages a second each is its own wake-up of the daemon, at 100 some share one: the
    // unknown announcements at each count measure that, and the second ratio takes it out.
    const paced = `${detail}; a report over an unknown announcement at ${LARGE} / the same at ${SMALL}: ${(f1000.reportUs / f1000.unknownUs / (f100.reportUs / f100.unknownUs)).toFixed(2)}`;
    report({ figure: `site: CPU a report, ${LARGE} buttons / ${SMALL}`, ratio: f1000.reportUs / f100.reportUs, target: { op: '<=', value: 1.2 }, detail: paced, checks });
    report({ figure: `site: CPU a report of a linked button, HA on / an unknown device's announcement (${LARGE})`, ratio: f1000.reportUs / f1000.unknownUs, target: { op: '<=', value: 5 }, detail, checks });
    const over = (bytes) => Math.round(((bytes - large.idleRss) / 1048576) * 10) / 10;
    const memory =
      `linking ${LARGE} in one window (${(large.linkMs / 1000).toFixed(1)} s, quiet ${(large.settleMs / 1000).toFixed(0)} s later; ${large.linkWrites} store writes, ${mb(large.linkBytes)}): ` +
      `RSS idle ${mb(large.idleRss)}, peak ${mb(large.peakRss)}, lowest within ${REST_MS / 1000} s of the last link ${mb(restRss)}; node options ${process.env.BENCH_DAEMON_NODE_ARGS || 'none'}`;
    process.stderr.write(`site ${memory}\n`);
    report({ figure: `site: RSS peak over idle linking ${LARGE}, MB`, ratio: over(large.peakRss), target: { op: '<=', value: PEAK_BOUND_MB }, detail: memory, checks });
    report({ figure: `site: RSS at rest over idle after linking ${LARGE}, MB`, ratio: over(restRss), target: { op: '<=', value: REST_BOUND_MB }, detail: memory, checks });
  },
  { timeoutMs: 12 * 60_000 },
);
