import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../support/broker.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { binarySensorState, enumSensorState, renderTemplates } from '../support/home-assistant-render.js';
import { observe, publishOnce, type ObservedMessage, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// Home Assistant MQTT discovery against mosquitto: what a fresh Home
// Assistant reads, a button appearing and disappearing, two hubs on one broker, a restart, Home
// Assistant's birth, and the setting off.

const HA = 'homeassistant';
const ON = { PANIC_PAIR_HOMEASSISTANT: 'true' };
const MARKER = `${HA}/test-marker`;
type Config = Record<string, unknown> & { unique_id: string; state_topic: string; payload_on?: string; payload_off?: string };

/** Every message published before this call has reached the observer (one connection, in order). */
async function settle(watcher: MqttObserver): Promise<void> {
  const topic = `${MARKER}/${randomBytes(4).toString('hex')}`;
  await watcher.client.publishAsync(topic, 'marker', { qos: 1 });
  await waitFor(() => watcher.messages.some((message) => message.topic === topic), { what: 'the marker to come back' });
}

/** The discovery configs an observer got, markers and Home Assistant's own status left out. */
function configsOf(watcher: MqttObserver, from = 0): ObservedMessage[] {
  return watcher.messages.slice(from).filter((message) => message.topic.endsWith('/config'));
}

/** What a Home Assistant starting now reads: the retained configs. */
async function freshRead(broker: TestBroker): Promise<Map<string, ObservedMessage>> {
  const fresh = await observe(broker.url, `${HA}/#`);
  try {
    await settle(fresh);
    return new Map(configsOf(fresh).map((message) => [message.topic, message]));
  } finally {
    await fresh.close();
  }
}

const roundsIn = (hub: DaemonHarness): number => hub.output().split('Home Assistant discovery configs in step with the broker').length - 1;
const waitRound = (hub: DaemonHarness, count: number): Promise<boolean> =>
  waitFor(() => roundsIn(hub) >= count, { timeoutMs: 20_000, what: `Home Assistant discovery round ${count}` });

async function pairButton(hub: DaemonHarness, deviceId: string): Promise<number> {
  await hub.announceSeen(deviceId);
  const pair = await hub.cli(['pair', deviceId, '--json']);
  expect(pair.code, pair.stderr).toBe(0);
  return (JSON.parse(pair.stdout) as { linkId: number }).linkId;
}

describe('one hub with Home Assistant discovery on', () => {
  let hub: DaemonHarness;
  let watcher: MqttObserver;
  beforeAll(async () => {
    hub = await startHarness({ env: ON });
    watcher = await observe(hub.broker.url, [`${HA}/#`, `${hub.prefix}/#`]);
  });
  afterAll(async () => {
    await watcher?.close();
    await hub?.close();
  });

  const hubTopics = () => [`${HA}/binary_sensor/${hub.prefix}/connectivity/config`, `${HA}/binary_sensor/${hub.prefix}/entitled/config`, `${HA}/update/${hub.prefix}/update/config`];
  const last = (topic: string): string | undefined => watcher.payloads(topic).at(-1);

  it('gives a fresh Home Assistant the hub: connected, Entitled on, and its software as it runs', async () => {
    await waitRound(hub, 1);
    const read = await freshRead(hub.broker);
    expect([...read.keys()].sort()).toEqual(hubTopics().sort());
    for (const message of read.values()) expect({ retain: message.retain, qos: message.qos }).toEqual({ retain: true, qos: 1 });

    const connectivity = JSON.parse(read.get(hubTopics()[0]!)!.payload) as Config;
    expect(connectivity).toMatchObject({
      unique_id: `panic_pair_${hub.prefix}_connectivity`,
      device_class: 'connectivity',
      entity_category: 'diagnostic',
      state_topic: `${hub.prefix}/status`,
      payload_on: 'online',
      payload_off: 'offline',
      device: { identifiers: [`panic_pair_${hub.prefix}`] },
    });
    expect(connectivity).not.toHaveProperty('availability_topic');
    const entitled = JSON.parse(read.get(hubTopics()[1]!)!.payload) as Config & { value_template: string };
    expect(entitled).toMatchObject({ name: 'Entitled', state_topic: `${hub.prefix}/entitlement`, availability_topic: `${hub.prefix}/status`, payload_available: 'online' });

    const entitlement = await waitFor(() => last(`${hub.prefix}/entitlement`), { what: 'the entitlement' });
    const [rendered] = renderTemplates([{ template: entitled.value_template, payload: entitlement }]);
    expect(binarySensorState(rendered!, entitled)).toBe('on');
    expect(binarySensorState(await waitFor(() => last(`${hub.prefix}/status`)), connectivity)).toBe('on');
    // The update entity reads the retained health: the running version, no update recorded.
    const update = JSON.parse(read.get(hubTopics()[2]!)!.payload) as Config & { value_template: string };
    expect(update).toMatchObject({ state_topic: `${hub.prefix}/health`, title: 'panic-pair', availability_topic: `${hub.prefix}/status`, device: { identifiers: [`panic_pair_${hub.prefix}`] } });
    expect(update).not.toHaveProperty('command_topic');
    const health = await waitFor(() => last(`${hub.prefix}/health`), { what: 'the health' });
    const [software] = renderTemplates([{ template: update.value_template, payload: health }]);
    const { version } = await hub.status();
    expect(JSON.parse(software!)).toEqual({ installed_version: version, latest_version: version, release_summary: null });
    // status and check say discovery is on, and where.
    expect((await hub.status()).homeAssistant).toEqual({ discoveryPrefix: HA });
    expect((await hub.cli(['status'])).stdout).toMatch(new RegExp(`^Home Assistant +discovery on, under ${HA}/$`, 'm'));
  });

  it('adds a paired button, once, as a device of its own whose state and attributes follow the store', async () => {
    const linkId = await pairButton(hub, 'HA:01');
    const linked = await waitFor(() => watcher.payloads(`${hub.prefix}/devices/HA:01`).find((payload) => payload.includes('"linked"')), { what: 'HA:01 linked' });
    await settle(watcher);
    const configs = configsOf(watcher).filter((message) => message.topic.startsWith(`${HA}/sensor/${hub.prefix}/button_`));
    // One config though the state went linking, then linked: states are not configs.
    expect(configs).toHaveLength(1);
    // Once linked, its supervision: Missing and Last heard, once each, on its device.
    const supervision = configsOf(watcher).filter((message) => /\/(missing|last_heard)_HA_01_[0-9a-f]{8}\/config$/.test(message.topic));
    expect(supervision.map((message) => (JSON.parse(message.payload) as Config & { name: string }).name).sort()).toEqual(['Last heard', 'Missing']);
    for (const message of supervision) {
      expect(JSON.parse(message.payload)).toMatchObject({ availability_topic: `${hub.prefix}/status`, device: { name: 'Panic button HA:01' } });
    }
    const [message] = configs;
    expect(message!.topic).toMatch(new RegExp(`^${HA}/sensor/${hub.prefix}/button_HA_01_[0-9a-f]{8}/config$`));
    expect(message!.qos).toBe(1);
    const config = JSON.parse(message!.payload) as Config & { value_template: string; json_attributes_template: string; options: string[] };
    expect(config).toMatchObject({
      device_class: 'enum',
      options: ['linking', 'linked', 'rejected', 'failed'],
      state_topic: `${hub.prefix}/devices/HA:01`,
      json_attributes_topic: `${hub.prefix}/devices/HA:01`,
      availability_topic: `${hub.prefix}/status`,
      device: { name: 'Panic button HA:01', via_device: `panic_pair_${hub.prefix}` },
    });
    const [state, attributes] = renderTemplates([
      { template: config.value_template, payload: linked },
      { template: config.json_attributes_template, payload: linked },
    ]);
    expect(enumSensorState(state!, config.options)).toBe('linked');
    expect(JSON.parse(attributes!)).toEqual({ customer_id: 42, link_id: linkId });
    expect((await freshRead(hub.broker)).get(message!.topic)?.retain).toBe(true);
  });

  it('publishes every config again when Home Assistant says online, and only then', async () => {
    await pairButton(hub, 'HA-02');
    await settle(watcher);
    const before = watcher.messages.length;
    const expected = [...(await freshRead(hub.broker)).keys()].sort();
    // The hub's three, and three for each linked button (link state, Missing, Last heard).
    expect(expected).toHaveLength(9);
    await publishOnce(hub.broker.url, `${HA}/status`, ['online']);
    await waitFor(() => expected.every((topic) => configsOf(watcher, before).some((message) => message.topic === topic)), {
      timeoutMs: 15_000,
      what: 'every config again after the birth message',
    });
    await settle(watcher);
    expect(configsOf(watcher, before).map((message) => message.topic).sort()).toEqual(expected);
  });

  it('clears a forgotten button', async () => {
    const topic = [...(await freshRead(hub.broker)).keys()].find((name) => name.includes('/button_HA-02/'))!;
    const result = await hub.cli(['forget', 'HA-02']);
    expect(result.code, result.stderr).toBe(0);
    await waitFor(() => last(topic) === '', { what: 'the empty config of HA-02' });
    expect((await freshRead(hub.broker)).has(topic)).toBe(false);
  });

  it('restarts without publishing anything new, clearing a stale config of its own and no other hub’s', async () => {
    expect(await hub.stop()).toEqual({ code: 0, signal: null });
    // What Home Assistant shows while the hub is away.
    expect(await waitFor(() => last(`${hub.prefix}/status`) === 'offline')).toBe(true);
    const ghost = `${HA}/sensor/${hub.prefix}/button_GONE/config`;
    const neighbour = `${HA}/sensor/another-hub/button_X/config`;
    await publishOnce(hub.broker.url, ghost, ['{"name":"left behind"}'], { retain: true });
    await publishOnce(hub.broker.url, neighbour, ['{"name":"not ours"}'], { retain: true });
    await settle(watcher);
    const rounds = roundsIn(hub);
    const before = watcher.messages.length;

    await hub.restart();
    await waitRound(hub, rounds + 1);
    await settle(watcher);
    expect(configsOf(watcher, before).map(({ topic, payload }) => ({ topic, payload }))).toEqual([{ topic: ghost, payload: '' }]);
    const read = await freshRead(hub.broker);
    expect(read.has(ghost)).toBe(false);
    expect(read.get(neighbour)?.payload).toBe('{"name":"not ours"}');
    expect([...read.keys()].filter((topic) => topic.includes(`/${hub.prefix}/`))).toHaveLength(6);
  });

  it('publishes its configs again after a broker restart lost them, without a birth message', async () => {
    const before = (await freshRead(hub.broker)).size;
    expect(before).toBeGreaterThanOrEqual(6);
    const rounds = roundsIn(hub);
    await hub.broker.restart();
    await waitRound(hub, rounds + 1);
    const read = await waitFor(async () => {
      const configs = await freshRead(hub.broker);
      return configs.size === 6 ? configs : undefined;
    }, { timeoutMs: 20_000, what: 'the hub’s six configs back on the restarted broker' });
    for (const message of read.values()) expect(message.retain).toBe(true);
  });
});

describe('two hubs on one broker', () => {
  let broker: TestBroker;
  let first: DaemonHarness;
  let second: DaemonHarness;
  beforeAll(async () => {
    broker = await startBroker();
    first = await startHarness({ broker, env: ON });
    second = await startHarness({ broker, env: ON });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await broker?.stop();
  });

  it('keep their entities apart, and forgetting on one leaves the other’s alone', async () => {
    await pairButton(first, 'SAME-1');
    await pairButton(second, 'SAME-1');
    const read = await waitFor(async () => {
      const configs = await freshRead(broker);
      return configs.size === 12 ? configs : undefined;
    }, { what: 'both hubs with a button each' });
    const ids = [...read.values()].map((message) => (JSON.parse(message.payload) as Config).unique_id);
    expect(new Set(ids).size).toBe(12);

    const result = await first.cli(['forget', 'SAME-1']);
    expect(result.code, result.stderr).toBe(0);
    const after = await waitFor(async () => {
      const configs = await freshRead(broker);
      return configs.size === 9 ? configs : undefined;
    }, { what: 'the first hub’s button gone' });
    expect([...after.keys()].filter((topic) => topic.includes('/button_SAME-1/'))).toEqual([`${HA}/sensor/${second.prefix}/button_SAME-1/config`]);
  });
});

describe('discovery off', () => {
  let hub: DaemonHarness;
  let watcher: MqttObserver;
  beforeAll(async () => {
    hub = await startHarness();
    watcher = await observe(hub.broker.url, `${HA}/#`);
  });
  afterAll(async () => {
    await watcher?.close();
    await hub?.close();
  });

  it('publishes nothing under the discovery prefix, birth message or not', async () => {
    await pairButton(hub, 'OFF-1');
    await publishOnce(hub.broker.url, `${HA}/status`, ['online']);
    const linked = await observe(hub.broker.url, `${hub.prefix}/devices/OFF-1`);
    try {
      await waitFor(() => linked.messages.some((message) => message.payload.includes('"linked"')), { what: 'OFF-1 linked' });
    } finally {
      await linked.close();
    }
    await settle(watcher);
    expect(watcher.messages.filter((message) => !message.topic.startsWith(MARKER) && message.topic !== `${HA}/status`)).toEqual([]);
    expect((await hub.status()).homeAssistant).toBeUndefined();
    expect((await hub.cli(['status'])).stdout).toMatch(/^Home Assistant +discovery off$/m);
  });
});
