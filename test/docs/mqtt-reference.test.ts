import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoveryId, hubNodeId } from '../../src/mqtt/home-assistant-ids.js';
import type { DeviceRow } from '../../src/supervision/types.js';
import { encryptReport } from '../authentication/bthome-vectors.js';
import { ROOT, type CliResult } from '../support/binary.js';
import { bridgeConfig } from '../support/bridged-hub.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { fleet } from '../support/fleet-reader.js';
import { observe, publishOnce, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// docs/reference/mqtt.md lists every topic the code publishes or reads, and no other. Rather than
// read the source, this watches the real programs through mosquitto's own log: the daemon with
// every MQTT feature on (Home Assistant, BLE gateways, Zigbee2MQTT, the health), on a hub broker
// bridged by `panic-pair bridge-config` to a central one, driven through a keyed button's pairing
// over a gateway (which gives a button every entity it can have) and a Zigbee2MQTT device list;
// then `panic-pair fleet` reading the central broker. Every topic a client of ours subscribed to
// (in) or published (out, its last will included) is turned into the page's notation, and the two
// sets must be equal: a topic the code gained fails until the page has it, a topic the page keeps
// after the code dropped it fails too. Nothing here needs a rare path: clearing a forgotten
// button, a missing one, a crash's last will all use topics this drive already shows.
//
// The page's topics are the rows of its tables whose first cell is one code span and whose second
// cell says `in`, `out`, or both.

const PAGE = path.join(ROOT, 'docs', 'reference', 'mqtt.md');

// Values chosen so that none is part of another, each turned back into the page's placeholder.
const PREFIX = 'pp.ref';
const HA = 'ha-ref';
const Z2M = 'z2m-ref';
const GATEWAY_BASE = 'gw-ref';
const HUB_ID = 'hub-ref';
const FRIENDLY_NAME = 'hall/sos';
const MAC = '54:48:E6:8F:80:A5';
const KEY = Buffer.from('231d39c1d7cc1ab1aee224cd096db932', 'hex');
const IEEE = '0x00124b00088ccd58';

/** Our clients, by their client ids: the daemon, the hub's bridge on the central broker, `fleet`. */
const DAEMON = /^panic-pair-[0-9a-f]{8}$/;
const BRIDGE = `panic-pair-hub-${HUB_ID}`;
const FLEET = /^panic-pair-fleet-[0-9a-f]{8}$/;

/** Concrete values to the page's placeholders, in this order (a node id holds no prefix, and so on). */
function notation(topic: string, fleetClient: string): string {
  const replacements: Array<[string, string]> = [
    [hubNodeId({ prefix: PREFIX, discoveryPrefix: HA, version: '' }), '<node>'],
    [discoveryId(MAC), '<button>'],
    [`${Z2M}/${FRIENDLY_NAME}`, '<z2m>/<friendly name>'],
    [MAC, '<deviceId>'],
    [fleetClient, '<client id>'],
    [`hubs/${HUB_ID}/`, 'hubs/<hub-id>/'],
    [PREFIX, '<prefix>'],
    [HA, '<ha>'],
    [Z2M, '<z2m>'],
    [GATEWAY_BASE, '<base>'],
  ];
  let result = topic;
  for (const [value, placeholder] of replacements) result = result.split(value).join(placeholder);
  // The bridge carries every `<prefix>/` topic of the hub as it is (its `topic # out` line): the
  // page gives them as one row, and the bridge's own state apart.
  if (result.startsWith('hubs/<hub-id>/') && result !== 'hubs/<hub-id>/bridge/state') return 'hubs/<hub-id>/<topic>';
  return result;
}

interface Seen {
  client: string;
  direction: 'in' | 'out';
  topic: string;
  qos: number;
  retained: boolean;
  /** The client's last will, given as it connected. */
  will: boolean;
}

/** What mosquitto logged (log_type debug and subscribe): each SUBSCRIBE, PUBLISH and last will, by client. */
function readLog(file: string): Seen[] {
  const seen: Seen[] = [];
  let connecting = '';
  const lines = readFileSync(file, 'utf8').split('\n');
  for (const [index, line] of lines.entries()) {
    const connected = /^New (?:client|bridge) connected from \S+ as (\S+) \(/.exec(line);
    if (connected) connecting = connected[1]!;
    const will = /^Will message specified \(\d+ bytes\) \(r(\d), q(\d)\)\.$/.exec(line);
    if (will) seen.push({ client: connecting, direction: 'out', topic: lines[index + 1]!.trim(), retained: will[1] === '1', qos: Number(will[2]), will: true });
    const published = /^Received PUBLISH from (\S+) \(d\d, q(\d), r(\d), m\d+, '(.*)', \.\.\. \(\d+ bytes\)\)$/.exec(line);
    if (published) seen.push({ client: published[1]!, direction: 'out', topic: published[4]!, qos: Number(published[2]), retained: published[3] === '1', will: false });
    // log_type subscribe: `<client id> <QoS> <filter>`.
    const subscribed = /^(\S+) (\d) (\S.*)$/.exec(line);
    if (subscribed && !line.startsWith('\t')) seen.push({ client: subscribed[1]!, direction: 'in', topic: subscribed[3]!, qos: Number(subscribed[2]), retained: false, will: false });
  }
  return seen;
}

/** The page's topics, `<direction> <topic>`, each with its table row. */
function pageTopics(markdown: string): Map<string, string> {
  const topics = new Map<string, string>();
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    const topic = /^`([^`]+)`$/.exec(cells[0] ?? '');
    if (topic === null) continue;
    const direction = /^(in|out|in and out)(?: \(.+\))?$/.exec(cells[1] ?? '');
    if (direction === null) continue;
    for (const word of direction[1]!.split(' and ')) topics.set(`${word} ${topic[1]}`, line);
  }
  return topics;
}

const LOGGING = (file: string): string => ['log_dest file ' + file, 'log_type notice', 'log_type debug', 'log_type subscribe', 'log_timestamp false'].join('\n');

describe('the MQTT reference', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-mqtt-reference-'));
  const centralLog = path.join(dir, 'central.log');
  const hubLog = path.join(dir, 'hub.log');
  let central: TestBroker | undefined;
  let hubBroker: TestBroker | undefined;
  let hub: DaemonHarness | undefined;
  let watcher: MqttObserver | undefined;
  let fleetRun: CliResult;

  async function closeAll(): Promise<void> {
    await watcher?.close();
    await hub?.close();
    await hubBroker?.stop();
    await central?.stop();
    watcher = hub = hubBroker = central = undefined;
  }

  beforeAll(async () => {
    central = await startBroker({ extraConfig: LOGGING(centralLog) });
    const printed = await bridgeConfig(['--central', central.address, '--hub-id', HUB_ID, '--mqtt-prefix', PREFIX]);
    expect(printed.code, printed.stderr).toBe(0);
    hubBroker = await startBroker({ extraConfig: `${printed.stdout}\n${LOGGING(hubLog)}` });
    const config = path.join(dir, 'config.json');
    const profiles = [
      { name: 'bthome-button', match: { serviceUuid: 'fcd2' }, deviceId: { from: 'address' }, keyRequired: true, supervisionSeconds: 60 },
      { name: 'zigbee-sos', match: { zigbeeModel: 'SOS-1' }, deviceId: { from: 'ieeeAddress' } },
    ];
    writeFileSync(config, JSON.stringify({ profiles }));
    hub = await startHarness({
      broker: hubBroker,
      prefix: PREFIX,
      env: {
        PANIC_PAIR_CONFIG: config,
        PANIC_PAIR_HOMEASSISTANT: 'true',
        PANIC_PAIR_HOMEASSISTANT_PREFIX: HA,
        PANIC_PAIR_MQTT_BLE_GATEWAYS: `${GATEWAY_BASE}/+/BTtoMQTT/+`,
        PANIC_PAIR_ZIGBEE2MQTT_PREFIX: Z2M,
      },
    });
    const daemon = hub;
    watcher = await observe(hubBroker.url, '#');

    // Zigbee2MQTT's retained device list names a button: the daemon subscribes to its own topic.
    const list = [{ ieee_address: IEEE, friendly_name: FRIENDLY_NAME, definition: { model: 'SOS-1', vendor: 'Acme' } }];
    await publishOnce(hubBroker.url, `${Z2M}/bridge/devices`, [JSON.stringify(list)], { retain: true });

    // A keyed BTHome button heard by a gateway, paired with its key, its battery in every report.
    const keyFile = path.join(dir, 'button.key');
    writeFileSync(keyFile, `${KEY.toString('hex')}\n`, { mode: 0o600 });
    let counter = 1_000;
    const report = (): string => {
      counter += 1;
      const data = encryptReport({ key: KEY, mac: MAC, counter, objects: Buffer.from([0x01, 87]) });
      return JSON.stringify({ id: MAC, rssi: -50, servicedatauuid: 'fcd2', servicedata: data.toString('hex') });
    };
    let done = false;
    const pairing = daemon.cli(['pair', MAC, '--key-file', keyFile]).finally(() => (done = true));
    while (!done) {
      await publishOnce(hubBroker.url, `${GATEWAY_BASE}/gw1/BTtoMQTT/${MAC.replaceAll(':', '')}`, [report()]);
      await Promise.race([pairing, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    const paired = await pairing;
    expect(paired.code, paired.stderr).toBe(0);
    const row = async (): Promise<DeviceRow | undefined> => (await daemon.devices<DeviceRow>()).find((device) => device.deviceId === MAC);
    await waitFor(async () => (await row())?.supervision === 'online', { what: 'the button to be online' });
    // What follows a link (its liveness, its entities, the health) has reached the broker once
    // nothing more comes for a while.
    await waitFor(
      async () => {
        const count = watcher!.messages.length;
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        return watcher!.messages.length === count;
      },
      { timeoutMs: 15_000, what: 'the daemon to publish nothing more' },
    );

    fleetRun = await fleet(['--central', central.address, '--json']);
    // A clean stop publishes `offline` itself; the broker's copy of the will is in the CONNECT.
    await daemon.stop();
    await closeAll();
  }, 60_000);
  afterAll(async () => {
    await closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What our clients did: the daemon on the hub's broker, the bridge and `fleet` on the central one. */
  function ours(): Array<Seen & { pattern: string }> {
    const seen = [...readLog(hubLog).filter((entry) => DAEMON.test(entry.client)), ...readLog(centralLog).filter((entry) => entry.client === BRIDGE || FLEET.test(entry.client))];
    const fleetClient = seen.find((entry) => FLEET.test(entry.client))?.client ?? 'no fleet client';
    return seen.map((entry) => ({ ...entry, pattern: `${entry.direction} ${notation(entry.topic, fleetClient)}` }));
  }

  it('lists every topic the daemon, the bridge and `fleet` use, and no other', () => {
    expect(fleetRun.code, fleetRun.stderr).not.toBe(2);
    const observed = new Set(ours().map((entry) => entry.pattern));
    const documented = pageTopics(readFileSync(PAGE, 'utf8'));
    expect({
      'used by the code, missing from the page': [...observed].filter((topic) => !documented.has(topic)).sort(),
      'on the page, not used by the code': [...documented.keys()].filter((topic) => !observed.has(topic)).sort(),
    }).toEqual({ 'used by the code, missing from the page': [], 'on the page, not used by the code': [] });
  });

  it('says which topics carry a last will', () => {
    const wills = ours().filter((entry) => entry.will);
    // The daemon's and the bridge's.
    expect(wills.length).toBe(2);
    const documented = pageTopics(readFileSync(PAGE, 'utf8'));
    expect(wills.filter((entry) => !/last will/.test(documented.get(entry.pattern) ?? '')).map((entry) => entry.pattern)).toEqual([]);
  });

  it('sees the daemon publish everything retained, at QoS 1, as the page says', () => {
    const published = ours().filter((entry) => DAEMON.test(entry.client) && entry.direction === 'out');
    expect(published.length).toBeGreaterThan(10);
    expect(published.filter((entry) => !entry.retained || entry.qos !== 1)).toEqual([]);
  });
});
