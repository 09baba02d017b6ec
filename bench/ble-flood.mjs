// BLE flood: CPU time for 100,000 advertisements (95 % phones and beacons, 5 % panic buttons)
// through the daemon's BLE path (noble, the BLE source, profile matching, engine.sighting) versus
// noble alone parsing the same reports. Both run in this process on the VirtualHciSocket, so the
// same HCI packets go through noble's own parser in each; the figure is the median ratio of
// alternating rounds. An informative figure (no target): 1.0 would mean our part costs nothing.
// The buttons also send BTHome v2 service data (packet id, battery), as battery-reporting buttons
// do: the daemon reads it once a profile matched.
// A second figure: the same path with every button linked and supervised, against the
// path without supervision; the target is within 5 %.
// A third: the supervised path with the authenticator in front, as the daemon now wires
// it, none of the buttons keyed, against the supervised path without it: within 5 %.
import { dist, median, report, runBench } from './lib/harness.mjs';

const ADVERTISEMENTS = 100_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PHONES = 400;
const BUTTONS = 50;

const { VirtualHciSocket } = await dist('discovery/virtual-hci-socket.js');
const { loadNoble } = await dist('discovery/noble-loader.js');
const { startBleSource } = await dist('discovery/ble.js');
const { ProfileMatcher } = await dist('discovery/profiles.js');
const { PairingEngine } = await dist('pairing/engine.js');
const { DEFAULT_PROFILE } = await dist('config/profile.js');
const { createCounters } = await dist('status/counters.js');
const { silentLogger } = await dist('log/logger.js');
const { Supervisor } = await dist('supervision/supervisor.js');
const { Authenticator } = await dist('authentication/authenticator.js');

/** No button keyed: the key store as the authenticator reads it. */
const noKeys = { ids: () => [], get: () => undefined, set: async () => undefined, remove: async () => undefined };

/** One LE Advertising Report event, H4 type byte first, as a controller sends it. */
function reportPacket(address, type, rssi, data) {
  const addressBytes = Buffer.from(address.split(':').reverse().join(''), 'hex');
  const parameters = Buffer.concat([Buffer.from([0x02, 0x01, type, 0x01]), addressBytes, Buffer.from([data.length]), data, Buffer.from([rssi & 0xff])]);
  return Buffer.concat([Buffer.from([0x04, 0x3e, parameters.length]), parameters]);
}
const ad = (type, value) => Buffer.concat([Buffer.from([value.length + 1, type]), value]);
const hex2 = (n) => n.toString(16).padStart(4, '0').replace(/(..)(..)/, '$1:$2');

function floodPackets() {
  const packets = [];
  for (let i = 0; i < ADVERTISEMENTS; i++) {
    if (i % 20 === 0) {
      const n = (i / 20) % BUTTONS;
      const bthome = Buffer.from([0xd2, 0xfc, 0x40, 0x00, i & 0xff, 0x01, 50 + (n % 50)]);
      const data = Buffer.concat([ad(0x01, Buffer.from([0x06])), ad(0x16, bthome), ad(0x09, Buffer.from(`PANIC-B${String(n).padStart(5, '0')}`))]);
      packets.push(reportPacket(`c4:64:9f:00:${hex2(n)}`, 0x03, -50 - (n % 30), data));
    } else {
      const n = i % PHONES;
      // Apple continuity (phones) and iBeacon-style frames, non-connectable, random addresses.
      const vendor = n % 2 === 0 ? Buffer.from('4c0010060319247bbc68', 'hex') : Buffer.from('4c000215f7826da64fa24e988024bc5b71e0893e00010002c5', 'hex');
      packets.push(reportPacket(`5a:10:20:30:${hex2(n)}`, 0x03, -60 - (n % 35), Buffer.concat([ad(0x01, Buffer.from([0x1a])), ad(0xff, vendor)])));
    }
  }
  return packets;
}

const stubApi = { listSubscriptions: async () => [], linkDevice: async () => { throw new Error('not in this bench'); } };
const stubStore = { get: () => undefined, all: () => [], put: async () => undefined, remove: async () => false };

/** The flood's buttons, all linked: what supervision watches. */
const LINKED = Array.from({ length: BUTTONS }, (_, n) => ({
  deviceId: `B${String(n).padStart(5, '0')}`, state: 'linked', customerId: 42, source: 'ble', linkId: n + 1,
  linkedAt: '2026-11-26T00:00:00.000Z', updatedAt: '2026-11-26T00:00:00.000Z',
}));

/** noble on a VirtualHciSocket, scanning; with `daemonPath`, the BLE source and the engine on it,
 * and with `supervised`, the supervisor hearing every sighting first, as the daemon wires it. */
async function pipeline(daemonPath, supervised = false, authenticated = false) {
  const socket = new VirtualHciSocket();
  const radio = loadNoble({ hciDevice: 0, socket });
  const counters = createCounters();
  let sightings = 0;
  let batteries = 0;
  let stop;
  if (daemonPath) {
    const logger = silentLogger();
    const engine = new PairingEngine({ customerId: 42, api: stubApi, store: stubStore, hasToken: true, apiConcurrency: 4, entitlementTtlMs: 300_000, minRssi: -70, autoPair: false, counters, logger });
    const supervisor = supervised
      ? new Supervisor({ on: true, maxSeconds: 7200, batteryLowPercent: 20, profiles: [DEFAULT_PROFILE], sourceUp: () => true, save: async () => undefined, logger })
      : undefined;
    supervisor?.load(LINKED, undefined);
    const deliver = supervisor
      ? (s) => { sightings++; if (s.battery !== undefined) batteries++; supervisor.heard(s); engine.sighting(s); }
      : (s) => { sightings++; if (s.battery !== undefined) batteries++; engine.sighting(s); };
    const authenticator = authenticated
      ? new Authenticator({ keys: noKeys, fileKeys: new Map(), savedCounters: new Map(), keyRequired: new Set(), counters, deliver, hearOnly: deliver, logger })
      : undefined;
    const onSighting = authenticator ? (s) => authenticator.sighting(s) : deliver;
    const source = startBleSource({ radio, matcher: new ProfileMatcher([DEFAULT_PROFILE]), source: 'ble', adapter: 'bench', counters, logger, onSighting });
    radio.open();
    stop = () => source.stop();
  } else {
    radio.noble.on('stateChange', (state) => state === 'poweredOn' && radio.noble.startScanning([], true));
    radio.noble.on('discover', () => undefined);
    radio.open();
    stop = () => radio.close();
  }
  const deadline = Date.now() + 5_000;
  while (!socket.scanning) {
    if (Date.now() > deadline) throw new Error('noble did not start scanning on the virtual socket');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { socket, stop, counters, sightings: () => sightings, batteries: () => batteries };
}

/** CPU milliseconds (user + system) to deliver every packet; delivery is synchronous end to end. */
function cpuMs(socket, packets) {
  const before = process.cpuUsage();
  for (let i = 0; i < packets.length; i++) socket.deliver(packets[i]);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

await runBench('ble-flood', async () => {
  const packets = floodPackets();
  const nobleMs = [];
  const daemonMs = [];
  const supervisedMs = [];
  const authenticatedMs = [];
  const ratios = [];
  const supervisedRatios = [];
  const authenticatedRatios = [];
  let lastDaemon;
  // A first round of each warms the JIT and is not counted.
  for (let round = 0; round <= ROUNDS; round++) {
    const bare = await pipeline(false);
    const bareMs = cpuMs(bare.socket, packets);
    bare.stop();
    const full = await pipeline(true);
    const fullMs = cpuMs(full.socket, packets);
    full.stop();
    lastDaemon = full;
    const watched = await pipeline(true, true);
    const watchedMs = cpuMs(watched.socket, packets);
    watched.stop();
    const guarded = await pipeline(true, true, true);
    const guardedMs = cpuMs(guarded.socket, packets);
    guarded.stop();
    if (round === 0) continue;
    authenticatedMs.push(guardedMs);
    authenticatedRatios.push(guardedMs / watchedMs);
    nobleMs.push(bareMs);
    daemonMs.push(fullMs);
    supervisedMs.push(watchedMs);
    ratios.push(fullMs / bareMs);
    supervisedRatios.push(watchedMs / fullMs);
  }
  const ratio = Number(median(ratios).toFixed(3));
  const detail = {
    advertisements: ADVERTISEMENTS,
    buttonShare: 0.05,
    nobleAloneMs: Number(median(nobleMs).toFixed(1)),
    daemonPathMs: Number(median(daemonMs).toFixed(1)),
    overheadUsPerAdvertisement: Number((((median(daemonMs) - median(nobleMs)) * 1000) / ADVERTISEMENTS).toFixed(3)),
    rounds: ROUNDS,
  };
  process.stderr.write(`ble-flood: noble alone ${detail.nobleAloneMs} ms, daemon BLE path ${detail.daemonPathMs} ms per ${ADVERTISEMENTS} advertisements: ratio ${ratio}\n`);
  report({
    figure: 'ble-flood',
    ratio,
    detail,
    checks: {
      everyAdvertisementCounted: lastDaemon.counters.announcements === ADVERTISEMENTS,
      everyButtonReportASighting: lastDaemon.sightings() === ADVERTISEMENTS / 20,
      everyButtonReportABattery: lastDaemon.batteries() === ADVERTISEMENTS / 20,
    },
  });
  const supervisedRatio = Number(median(supervisedRatios).toFixed(3));
  process.stderr.write(`ble-flood: with ${BUTTONS} linked buttons supervised ${median(supervisedMs).toFixed(1)} ms: ratio to the unsupervised path ${supervisedRatio}\n`);
  report({
    figure: 'ble-flood-supervised',
    ratio: supervisedRatio,
    target: { op: '<=', value: 1.05 },
    detail: { linkedButtons: BUTTONS, supervisedPathMs: Number(median(supervisedMs).toFixed(1)), daemonPathMs: detail.daemonPathMs, rounds: ROUNDS },
  });
  const authenticatedRatio = Number(median(authenticatedRatios).toFixed(3));
  process.stderr.write(`ble-flood: with the authenticator in front, no button keyed, ${median(authenticatedMs).toFixed(1)} ms: ratio to the supervised path ${authenticatedRatio}\n`);
  report({
    figure: 'ble-flood-authenticator-unkeyed',
    ratio: authenticatedRatio,
    target: { op: '<=', value: 1.05 },
    detail: { linkedButtons: BUTTONS, keyed: 0, authenticatedPathMs: Number(median(authenticatedMs).toFixed(1)), supervisedPathMs: Number(median(supervisedMs).toFixed(1)), rounds: ROUNDS },
  });
});
