// Fleet load: what each hub's health and state cost a central broker.
//
//   node bench/fleet-load.mjs [--rest-refreshes 5] [--buttons 10] [--hubs 10000] [--central-seconds 60]
//
// 1. One real hub, measured on the wire: a daemon on its own mosquitto, bridged by the file
//    `panic-pair bridge-config` prints to a central mosquitto through a relay that counts bytes
//    each way (MQTT packets; TLS and TCP/IP headers not included). At rest, the window runs from
//    one health refresh to the --rest-refreshes'th after it (5: five minutes, which also holds
//    the entitlement check every 300 s); then a pairing window links --buttons buttons, counted
//    from the window's opening to the health message that shows them linked.
// 2. The central side at fleet size, meanwhile: --hubs raw MQTT connections to a second central
//    mosquitto, each with a bridge's client id, will and retained topics, refreshing the measured
//    health payload every minute and pinging as often (more than a bridge pings: an upper bound);
//    the broker's CPU time and RSS are read over --central-seconds.
// Run `npm run build` first. Figures inform; nothing here has a target.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { BIN, cpuMsOf, mb, mqttClient, report, rssOf, runBench, sleep, startDaemon, startMosquitto, startSimulator, until } from './lib/harness.mjs';
import { startCountingProxy } from './lib/counting-proxy.mjs';
import { announce, buttonIds, openWindow } from './lib/pairing-run.mjs';
import { startSimulatedFleet } from './lib/simulated-fleet.mjs';

const { values } = parseArgs({
  options: {
    'rest-refreshes': { type: 'string', default: '5' },
    buttons: { type: 'string', default: '10' },
    hubs: { type: 'string', default: '10000' },
    'central-seconds': { type: 'string', default: '60' },
  },
});
const REST_REFRESHES = Number(values['rest-refreshes']);
const BUTTONS = Number(values.buttons);
const HUBS = Number(values.hubs);
const CENTRAL_MS = Number(values['central-seconds']) * 1000;
for (const [name, value] of [['--rest-refreshes', REST_REFRESHES], ['--buttons', BUTTONS], ['--hubs', HUBS], ['--central-seconds', CENTRAL_MS]]) {
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a whole number above 0`);
}
const FLEET = 10_000;
const HOUR_S = 3600;
const HUB_ID = 'bench-hub';
const PREFIX = 'fleet';
const REFRESH_MS = 60_000;

function tally(messages) {
  const byTopic = {};
  for (const { topic } of messages) {
    const kind = topic.replace(/^devices\/.*/, 'devices/<id>');
    byTopic[kind] = (byTopic[kind] ?? 0) + 1;
  }
  return { count: messages.length, payloadBytes: messages.reduce((sum, m) => sum + m.bytes, 0), byTopic };
}

const round = (value, digits = 2) => Number(value.toFixed(digits));

await runBench(
  'fleet-load',
  async () => {
    // --- 1. One real hub on the wire.
    const central = await startMosquitto();
    const relay = await startCountingProxy(central.port);
    const printed = spawnSync(process.execPath, [BIN, 'bridge-config', '--central', `mqtt://127.0.0.1:${relay.port}`, '--hub-id', HUB_ID, '--mqtt-prefix', PREFIX], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, PANIC_PAIR_CONFIG: '' },
    });
    if (printed.status !== 0) throw new Error(`bridge-config exited ${printed.status}: ${printed.stderr}`);
    const hubBroker = await startMosquitto({ extraConfig: printed.stdout });
    const watcher = await mqttClient(central.url);
    const seen = [];
    const below = `hubs/${HUB_ID}/`;
    watcher.on('message', (topic, payload) => seen.push({ topic: topic.slice(below.length), bytes: payload.length, text: payload.toString(), at: performance.now() }));
    await watcher.subscribeAsync(`${below}#`, { qos: 0 });
    const simulator = await startSimulator();
    const daemon = await startDaemon({ apiUrl: simulator.url, token: simulator.token, mqttUrl: hubBroker.url, prefix: PREFIX });
    await daemon.ready();
    const readyAt = performance.now();
    const healths = (from) => seen.slice(from).filter((m) => m.topic === 'health');

    // The window starts at a health message once start-up has settled (a healthy one, 2 s on).
    const start = await until('a settled health message', () => {
      const message = healths(0).find((m) => m.at > readyAt + 2_000 && JSON.parse(m.text).healthy);
      return message === undefined ? undefined : message;
    }, { timeoutMs: REFRESH_MS * 2, everyMs: 20 });
    relay.reset();
    const daemonCpuBefore = cpuMsOf(daemon.pid);
    const restFrom = seen.indexOf(start) + 1;
    const healthBytes = start.bytes;

    // --- 2. Meanwhile, the central side at fleet size, on a broker of its own.
    const fleetBroker = await startMosquitto();
    const fleetRun = (async () => {
      const fleet = await startSimulatedFleet({ port: fleetBroker.port, count: HUBS, health: start.text, refreshMs: REFRESH_MS });
      await sleep(5_000); // the connect storm's retained publishes settle first
      const cpuBefore = cpuMsOf(fleetBroker.pid);
      const sentBefore = fleet.refreshesSent();
      const t0 = performance.now();
      await sleep(CENTRAL_MS);
      const elapsed = performance.now() - t0;
      const cpuMs = cpuMsOf(fleetBroker.pid) - cpuBefore;
      const refreshes = fleet.refreshesSent() - sentBefore;
      const rss = rssOf(fleetBroker.pid);
      fleet.stop();
      return { connectMs: fleet.connectMs, cpuPercent: (cpuMs / elapsed) * 100, refreshesPerSecond: (refreshes / elapsed) * 1000, rss };
    })();

    const end = await until(`${REST_REFRESHES} health refreshes`, () => healths(restFrom)[REST_REFRESHES - 1], {
      timeoutMs: REFRESH_MS * (REST_REFRESHES + 1),
      everyMs: 50,
    });
    const restWire = relay.read();
    const restSeconds = (end.at - start.at) / 1000;
    // What the hub's daemon spends at rest, its status read every second for the health included.
    const daemonCpuPercent = ((cpuMsOf(daemon.pid) - daemonCpuBefore) / (restSeconds * 1000)) * 100;
    const rest = tally(seen.slice(restFrom, seen.indexOf(end) + 1));
    const central10k = await fleetRun;

    // --- 1b. A pairing of BUTTONS buttons through a pairing window.
    relay.reset();
    const pairFrom = seen.length;
    const pairStarted = performance.now();
    const window = await openWindow(daemon, 60);
    const ids = buttonIds('FLEET', BUTTONS);
    const client = await mqttClient(hubBroker.url);
    await announce(client, PREFIX, ids);
    await window.waitForOutcomes(BUTTONS, 60_000);
    await window.close();
    const settled = await until('the health to show the buttons linked', () => healths(pairFrom).find((m) => JSON.parse(m.text).devices.linked === BUTTONS), { timeoutMs: 30_000, everyMs: 20 });
    const pairWire = relay.read();
    const pairing = tally(seen.slice(pairFrom, seen.indexOf(settled) + 1));
    const pairSeconds = (settled.at - pairStarted) / 1000;

    // Per hub per hour, and the fleet of 10,000 at the central broker.
    const perHour = HOUR_S / restSeconds;
    const restHour = {
      messages: round(rest.count * perHour, 1),
      bytesToCentral: Math.round(restWire.toCentral * perHour),
      bytesFromCentral: Math.round(restWire.fromCentral * perHour),
    };
    const perButton = {
      messages: round(pairing.count / BUTTONS, 2),
      bytesToCentral: Math.round(pairWire.toCentral / BUTTONS),
      bytesFromCentral: Math.round(pairWire.fromCentral / BUTTONS),
    };
    const fleetRest = {
      messagesPerSecond: round((restHour.messages * FLEET) / HOUR_S, 1),
      bytesPerSecondIn: Math.round((restHour.bytesToCentral * FLEET) / HOUR_S),
      bytesPerSecondOut: Math.round((restHour.bytesFromCentral * FLEET) / HOUR_S),
    };
    const detail = {
      healthPayloadBytes: healthBytes,
      rest: { windowSeconds: round(restSeconds, 1), ...rest, wire: restWire, perHubPerHour: restHour, daemonCpuPercentOfOneCore: round(daemonCpuPercent, 3) },
      pairing: { buttons: BUTTONS, seconds: round(pairSeconds, 1), ...pairing, wire: pairWire, perButton },
      fleetOf10000AtRest: fleetRest,
      // An hour in which a tenth of the fleet pairs BUTTONS buttons each.
      tenthPairingHourExtra: {
        messagesPerSecond: round((FLEET / 10) * pairing.count / HOUR_S, 2),
        bytesPerSecondIn: Math.round(((FLEET / 10) * pairWire.toCentral) / HOUR_S),
      },
      simulatedCentral: {
        hubs: HUBS,
        connectSeconds: round(central10k.connectMs / 1000, 1),
        healthRefreshesPerSecond: round(central10k.refreshesPerSecond, 1),
        cpuPercentOfOneCore: round(central10k.cpuPercent, 2),
        rss: mb(central10k.rss),
      },
    };
    process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
    const checks = {
      'one health message a minute at rest': rest.byTopic.health === REST_REFRESHES,
      'each button linked': window.outcomes.filter((outcome) => outcome.ok).length === BUTTONS,
    };
    report({ figure: 'fleet: one hub at rest, messages per hour at the central broker', ratio: restHour.messages, detail: detail.rest, checks });
    report({ figure: 'fleet: one hub at rest, bytes per hour to the central broker', ratio: restHour.bytesToCentral, detail: detail.rest.wire });
    report({ figure: 'fleet: one button paired, messages at the central broker', ratio: perButton.messages, detail: detail.pairing, checks });
    report({ figure: 'fleet: one button paired, bytes to the central broker', ratio: perButton.bytesToCentral, detail: detail.pairing.wire });
    report({ figure: 'fleet: 10,000 hubs at rest, messages/s at the central broker', ratio: fleetRest.messagesPerSecond, detail: fleetRest });
    report({ figure: 'fleet: 10,000 hubs at rest, bytes/s into the central broker', ratio: fleetRest.bytesPerSecondIn, detail: fleetRest });
    report({ figure: `fleet: central mosquitto CPU, % of one core, ${HUBS} simulated hubs`, ratio: detail.simulatedCentral.cpuPercentOfOneCore, detail: detail.simulatedCentral });
  },
  { timeoutMs: 12 * 60_000 },
);
