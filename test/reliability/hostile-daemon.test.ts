import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAnnouncement } from '../../src/discovery/announce.js';
import { parseGatewayMessage } from '../../src/discovery/ble-gateway.js';
import { ProfileMatcher } from '../../src/discovery/profiles.js';
import { parseBridgeEvent } from '../../src/discovery/zigbee2mqtt.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';
import { rssOf } from './support/daemon-process.js';
import { FUZZ_PROFILES, FUZZ_PROFILES_JSON } from './support/fuzz-profiles.js';
import { hostilePayload, type HostileTarget } from './support/hostile-payloads.js';
import { seededRandom, testSeed, type SeededRandom } from './support/seeded-random.js';

// Hostile input through a running daemon: thousands of seeded random messages on every topic it
// listens to (announcements, BLE gateways, Zigbee2MQTT bridge events), and a flood of oversized
// ones. The daemon keeps answering, counts every message and drops exactly the invalid ones,
// links nothing nobody asked for, and its memory stays bounded.

const SEED = testSeed(0x5eed_0002);
const MESSAGES = 3_000;
/** Oversized messages in each of the two rounds. */
const FLOOD = 1_200;
const FLOOD_BYTES = 100 * 1024;
/** Generous, yet under the 120 MB a round's flood brings: a daemon keeping what it is sent fails it. */
const RSS_GROWTH_BOUND = 64 * 1024 * 1024;
const BATCH = 200;

const tag = `fz-${randomBytes(3).toString('hex')}`;
const matcher = new ProfileMatcher(FUZZ_PROFILES);
const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-fuzz-daemon-'));
let hub: DaemonHarness | undefined;
let publisher: MqttClient | undefined;

beforeAll(async () => {
  const config = path.join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ profiles: FUZZ_PROFILES_JSON }), { mode: 0o644 });
  hub = await startHarness({
    logLevel: 'info',
    env: { PANIC_PAIR_CONFIG: config, PANIC_PAIR_MQTT_BLE_GATEWAYS: `${tag}/+/BTtoMQTT/+`, PANIC_PAIR_ZIGBEE2MQTT_PREFIX: `${tag}-z2m` },
  });
  publisher = await connectAsync(hub.broker.url, { reconnectPeriod: 0 });
});

afterAll(async () => {
  await publisher?.endAsync(true);
  await hub?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Message {
  topic: string;
  payload: Buffer;
  /** What the daemon must do with it: count it as dropped or not. */
  dropped: boolean;
}

/** Whether the daemon drops this message: invalid, or matching a profile without a usable deviceId. */
function isDropped(target: HostileTarget, payload: Buffer): boolean {
  if (target === 'announce') return 'invalid' in parseAnnouncement(payload, 0);
  if (target === 'gateway') {
    const report = parseGatewayMessage(payload);
    return 'invalid' in report || matcher.advertisement(report.advertisement, report.address)?.ok === false;
  }
  const event = parseBridgeEvent(payload);
  if ('invalid' in event) return true;
  return 'joined' in event && matcher.zigbee(event.joined.definition, event.joined.ieeeAddress)?.ok === false;
}

function topicFor(harness: DaemonHarness, random: SeededRandom, target: HostileTarget): string {
  if (target === 'announce') return `${harness.prefix}/announce`;
  if (target === 'zigbee') return `${tag}-z2m/bridge/event`;
  // Gateway names are whatever the neighbour's gateway calls itself.
  const name = random.chance(0.5) ? `gw${random.int(0, 3)}` : random.text('abcXYZ09 -_.é\u200b😀', random.int(1, 80));
  return `${tag}/${name}/BTtoMQTT/${random.bytes(6).toString('hex').toUpperCase()}`;
}

function hostileMessage(harness: DaemonHarness, random: SeededRandom): Message {
  const target = random.pick<HostileTarget>(['announce', 'gateway', 'zigbee']);
  const payload = hostilePayload(random, target);
  return { topic: topicFor(harness, random, target), payload, dropped: isDropped(target, payload) };
}

function floodMessage(harness: DaemonHarness, random: SeededRandom): Message {
  const target = random.pick<HostileTarget>(['announce', 'gateway', 'zigbee']);
  const payload = Buffer.alloc(FLOOD_BYTES, random.pick(['{', '[', 'a', ' ']));
  return { topic: topicFor(harness, random, target), payload, dropped: true };
}

/** Publishes in batches, each counted by the daemon before the next goes out (the broker would
 * otherwise drop QoS 0 messages a busy subscriber has not taken yet). */
async function send(harness: DaemonHarness, client: MqttClient, messages: Message[]): Promise<void> {
  for (let start = 0; start < messages.length; start += BATCH) {
    const batch = messages.slice(start, start + BATCH);
    const before = (await harness.status()).counters.announcements;
    await Promise.all(batch.map((message) => client.publishAsync(message.topic, message.payload, { qos: 1 })));
    await waitFor(async () => (await harness.status()).counters.announcements >= before + batch.length, {
      timeoutMs: 20_000,
      intervalMs: 50,
      what: `the daemon to count a batch of ${batch.length} (seed ${SEED})`,
    });
  }
}

describe('hostile messages on every topic the daemon listens to', () => {
  it(`counts them all, drops exactly the invalid ones, links nothing, stays up and bounded (seed ${SEED})`, { timeout: 120_000 }, async () => {
    const harness = hub!;
    const client = publisher!;
    const random = seededRandom(SEED);
    const pid = (await harness.status()).pid;

    const before = (await harness.status()).counters;
    // Two rounds alike: the first lets the heap grow to its working size, the second must not add
    // to it what it was sent (a daemon keeping payloads would grow by the flood, over 100 MB).
    const round = (): Message[] => {
      const messages = Array.from({ length: MESSAGES / 2 }, () => hostileMessage(harness, random));
      for (let i = 0; i < FLOOD; i++) messages.splice(random.int(0, messages.length), 0, floodMessage(harness, random));
      return messages;
    };
    const first = round();
    await send(harness, client, first);
    const rssBefore = rssOf(pid);
    const second = round();
    await send(harness, client, second);
    const all = [...first, ...second];

    const after = await harness.status();
    const rssAfter = rssOf(pid);
    expect(after.pid).toBe(pid);
    expect(after.counters.announcements - before.announcements).toBe(all.length);
    expect(after.counters.dropped - before.dropped).toBe(all.filter((message) => message.dropped).length);
    expect(after.counters.dropped).toBeGreaterThan(before.dropped);
    // Valid sightings among them, but no window, no request and no automatic pairing: no link.
    expect(harness.simulator.stats().requests.link).toBe(0);
    expect(harness.storeRecords()).toEqual([]);
    expect(rssAfter - rssBefore, `RSS ${rssBefore} -> ${rssAfter} bytes`).toBeLessThan(RSS_GROWTH_BOUND);
    expect(harness.output()).not.toMatch(/uncaught|"level":60/);
    process.stderr.write(`hostile daemon (seed ${SEED}): ${all.length} messages, RSS ${(rssBefore / 1048576).toFixed(1)} -> ${(rssAfter / 1048576).toFixed(1)} MB\n`);

    // And it still does its job.
    await harness.announceSeen('AFTER-FUZZ');
    expect((await harness.cli(['pair', 'AFTER-FUZZ'])).code).toBe(0);
    expect(postsFor(harness, 'AFTER-FUZZ')).toBe(1);
  });
});
