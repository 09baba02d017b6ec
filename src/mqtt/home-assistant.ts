import { monotonicNow, type MonotonicClock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { DeviceRecord } from '../store/record.js';
import type { ButtonLiveness, DeviceRow } from '../supervision/types.js';
import type { MqttConnection } from './connection.js';
import {
  batteryKnown,
  keyedRow,
  birthTopic,
  buttonConfigs,
  buttonConfigTopics,
  desiredConfigs,
  heldConfigTopics,
  hubConfigFilter,
  hubConfigs,
  type ButtonRow,
  type HubIdentity,
} from './home-assistant-configs.js';
import { planDiscovery, type DiscoveryPlan } from './home-assistant-plan.js';
import { statusTopic } from './topics.js';

// Home Assistant MQTT discovery: keeps this hub's retained config topics
// equal to the store. Only subscribes to its own configs and Home Assistant's birth: nothing on
// MQTT can start a pairing.
//
// At each connect the broker first sends the retained configs it holds for this hub; the daemon
// compares them with what it would publish and sends only the difference, so a restart with
// nothing changed publishes nothing. MQTT has no "end of retained messages" marker: the retained
// `<prefix>/status` (which the connection publishes before it subscribes) is used as one, because
// its subscription comes after the config filter's and a broker sends retained messages in the
// order of the subscriptions. Should it never come (an ACL that hides it), a timeout stands in.

export interface HomeAssistantDiscovery {
  /** A stored device changed: publishes its config when it differs from the broker's (a new button). */
  deviceChanged(record: DeviceRecord): void;
  /** A linked button's supervision changed: publishes its battery sensor once a battery is first known. */
  livenessChanged(deviceId: string, liveness: ButtonLiveness): void;
  /** A device left the store: clears its configs. */
  forgotten(deviceId: string): void;
  stop(): void;
}

export interface HomeAssistantOptions {
  connection: MqttConnection;
  hub: HubIdentity;
  /** The store's devices now, with their liveness where the engine gives it. */
  devices: () => DeviceRow[];
  /** One stored device's row as `devices` lists it, or undefined when the store does not hold it;
   * default a search of `devices()`. A change of one button then costs the same whatever their number. */
  device?: (deviceId: string) => DeviceRow | undefined;
  logger: Logger;
  /** Wait (ms) after Home Assistant's birth before publishing; default 0 to 2 s at random, so hubs do not all answer at once. */
  birthDelay?: () => number;
  /** Most time (ms) to wait for the retained configs after a connect; default 10 s (a hub under load is slow to read them). */
  settleTimeoutMs?: number;
  /** Least time (ms) between two answers to birth messages; default 30 s. */
  birthCooldownMs?: number;
  /** Durations (the birth cool-down); default monotonicNow. */
  clock?: MonotonicClock;
}

export function startHomeAssistant(options: HomeAssistantOptions): HomeAssistantDiscovery {
  const { connection, hub, devices, logger } = options;
  const device = options.device ?? ((deviceId: string) => devices().find((row) => row.deviceId === deviceId));
  const birthDelay = options.birthDelay ?? (() => Math.random() * 2_000);
  const settleTimeoutMs = options.settleTimeoutMs ?? 10_000;
  const birthCooldownMs = options.birthCooldownMs ?? 30_000;
  const clock = options.clock ?? monotonicNow;
  // Anyone on the broker can say `online` there: a flood of them costs one answer a cool-down.
  let lastBirthAnswer = Number.NEGATIVE_INFINITY;
  /** What the broker holds under this hub's config topics, from what it sent and what was published since. */
  const retained = new Map<string, string>();
  // True once this connection's retained configs have been read and the difference published.
  let synced = false;
  let stopped = false;
  let settleTimer: NodeJS.Timeout | undefined;
  let birthTimer: NodeJS.Timeout | undefined;

  const publish = (topic: string, payload: string): void => {
    if (payload === '') retained.delete(topic);
    else retained.set(topic, payload);
    connection.publishRetained(topic, payload);
  };
  const apply = (plan: DiscoveryPlan, why: string): void => {
    for (const [topic, payload] of plan.publish) publish(topic, payload);
    for (const topic of plan.clear) publish(topic, '');
    // Once a connect and once a Home Assistant start: worth a line even when nothing was sent.
    logger.info({ published: plan.publish.length, cleared: plan.clear.length, why }, 'Home Assistant discovery configs in step with the broker');
  };
  // Buttons whose battery was reported since the start, beside those the devices' rows say: the
  // battery sensor, once there, stays until the button is forgotten.
  const withBattery = new Set<string>();
  const hasBattery = (row: ButtonRow): boolean => batteryKnown(row) || withBattery.has(row.deviceId);
  // Likewise buttons that became keyed since the start (paired again with a key).
  const withKey = new Set<string>();
  const isKeyed = (row: ButtonRow): boolean => keyedRow(row) || withKey.has(row.deviceId);
  const desired = (): Map<string, string> => desiredConfigs(hub, devices(), hasBattery, isKeyed);
  const held = (): Set<string> => heldConfigTopics(hub, devices());
  // Every config message that comes back asks whether its topic is still wanted: the hub's own, or
  // one a stored button may have. The set is read from the store once a connect and then kept
  // button by button (a stored device is told as it is linked, and as it is forgotten): rebuilt at
  // each change, a window of 1,000 links cost the square of their number.
  const hubTopics = new Set(hubConfigs(hub).keys());
  let heldTopics: Set<string> | undefined;
  const isWanted = (topic: string): boolean => hubTopics.has(topic) || (heldTopics ??= held()).has(topic);
  const hold = (deviceId: string): void => {
    if (heldTopics !== undefined) for (const topic of buttonConfigTopics(hub, deviceId)) heldTopics.add(topic);
  };
  /** Publishes the configs of a stored button that differ from the broker's. */
  const publishButton = (row: ButtonRow): void => {
    for (const [topic, payload] of buttonConfigs(hub, row, hasBattery(row), isKeyed(row))) {
      if (retained.get(topic) !== payload) publish(topic, payload);
    }
  };

  const finishRound = (): void => {
    if (synced || stopped || connection.state() !== 'connected') return;
    synced = true;
    clearTimeout(settleTimer);
    apply(planDiscovery(desired(), retained, false, (heldTopics ??= held())), 'connected');
  };
  const startRound = (): void => {
    retained.clear();
    heldTopics = undefined;
    synced = false;
    clearTimeout(settleTimer);
    settleTimer = setTimeout(finishRound, settleTimeoutMs);
    settleTimer.unref();
  };
  const endRound = (): void => {
    synced = false;
    clearTimeout(settleTimer);
    clearTimeout(birthTimer);
    birthTimer = undefined;
  };

  // Order matters: the config filter first, the status marker after it (see above).
  connection.subscribe(hubConfigFilter(hub), (topic, payload) => {
    if (stopped) return;
    const text = payload.toString();
    if (text === '') {
      retained.delete(topic);
      return;
    }
    retained.set(topic, text);
    // A config of this hub for a button no longer stored (forgotten while this copy was on its way).
    if (synced && !isWanted(topic)) publish(topic, '');
  });
  connection.subscribe(`${statusTopic(hub.prefix)}/#`, () => finishRound());
  connection.subscribe(birthTopic(hub), (_topic, payload) => {
    // Before the round ends the round itself publishes what is missing.
    if (stopped || !synced || payload.toString() !== 'online' || birthTimer !== undefined) return;
    const coolingFor = lastBirthAnswer + birthCooldownMs - clock();
    birthTimer = setTimeout(() => {
      birthTimer = undefined;
      if (!synced || stopped) return;
      lastBirthAnswer = clock();
      apply(planDiscovery(desired(), retained, true, (heldTopics ??= held())), 'Home Assistant came online');
    }, Math.max(0, birthDelay(), coolingFor));
    birthTimer.unref();
  });
  connection.onStateChange((state) => {
    if (stopped) return;
    if (state === 'connected') startRound();
    else endRound();
  });
  if (connection.state() === 'connected') startRound();

  return {
    deviceChanged(record) {
      // A record the store did not take (its first write failed) is not a button to show.
      if (device(record.deviceId) === undefined) return;
      hold(record.deviceId);
      // Until the round ends the broker's copy is not known; the round publishes it then.
      if (!synced || stopped) return;
      publishButton(record);
    },
    livenessChanged(deviceId, liveness) {
      const newBattery = liveness.battery !== null && !withBattery.has(deviceId);
      const newKey = liveness.imitated !== undefined && !withKey.has(deviceId);
      if (!newBattery && !newKey) return;
      if (newBattery) withBattery.add(deviceId);
      if (newKey) withKey.add(deviceId);
      if (!synced || stopped) return;
      const row = device(deviceId);
      if (row !== undefined) publishButton(row);
    },
    forgotten(deviceId) {
      withBattery.delete(deviceId);
      withKey.delete(deviceId);
      const topics = buttonConfigTopics(hub, deviceId);
      if (heldTopics !== undefined) for (const topic of topics) heldTopics.delete(topic);
      if (stopped) return;
      // Cleared even when this copy thinks the broker holds nothing: the broker's copy may be unread.
      for (const topic of topics) publish(topic, '');
      logger.info({ deviceId }, 'Home Assistant discovery configs of a forgotten device cleared');
    },
    stop() {
      stopped = true;
      endRound();
    },
  };
}
