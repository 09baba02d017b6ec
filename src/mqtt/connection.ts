import { randomBytes } from 'node:crypto';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { PanicPairError, messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { RateLimitedWarning } from '../log/rate-limited.js';
import { brokerForLogs, passwordFrom, readCredentialFile } from './credentials.js';
import { reconnectDelay } from './reconnect-delay.js';
import { SubscriptionTable, type MessageHandler } from './subscriptions.js';
import { statusTopic, type StatusPayload } from './topics.js';

export type MqttState = 'connecting' | 'connected' | 'disconnected';

export interface MqttConnection {
  state(): MqttState;
  /** Remembered, and subscribed again on every (re)connect. */
  subscribe(filter: string, onMessage: MessageHandler): void;
  /** QoS 1, retained; queued by mqtt.js while the broker is away. */
  publishRetained(topic: string, payload: string): void;
  onStateChange(listener: (state: MqttState) => void): void;
  /** Publishes `offline` (a clean disconnect does not fire the will), then disconnects; bounded in time. */
  close(): Promise<void>;
}

export interface MqttConnectionOptions {
  url: string;
  username?: string;
  passwordFile?: string;
  caFile?: string;
  prefix: string;
  logger: Logger;
  clientId?: string;
  connectTimeoutMs?: number;
  /** Wait before reconnect attempt n; default 1 s doubling to 30 s. */
  reconnectDelay?: (attempt: number) => number;
  /** How long close() may take; default 3 s. */
  closeTimeoutMs?: number;
}

const QOS1_RETAINED = { qos: 1, retain: true } as const;

// Never throws once started: a missing broker is a state (shown by `status`), not a failure of the
// daemon, which goes on pairing over BLE meanwhile.
export function connectMqtt(options: MqttConnectionOptions): MqttConnection {
  const { logger, prefix } = options;
  const url = parseBrokerUrl(options.url);
  const broker = brokerForLogs(url);
  const status = statusTopic(prefix);
  const delayFor = options.reconnectDelay ?? reconnectDelay;
  const subscriptions = new SubscriptionTable();
  const listeners: Array<(state: MqttState) => void> = [];
  const problems = new RateLimitedWarning({ logger, summary: (n) => `${n} more MQTT connection problems` });
  const handlerErrors = new RateLimitedWarning({ logger, summary: (n) => `${n} more MQTT message handler errors` });
  let current: MqttState = 'connecting';
  let attempt = 0;
  let closing: Promise<void> | undefined;
  let password: string | undefined;
  let ca: Buffer | undefined;

  const refreshCredentials = (): void => {
    if (options.passwordFile !== undefined) {
      const read = readCredentialFile(options.passwordFile);
      // On a failed read the last good password stays: better than connecting with none.
      if (read.ok) password = passwordFrom(read.value);
      else problems.warn({ broker, passwordFile: options.passwordFile, error: read.reason }, 'cannot read the MQTT password file');
    }
    if (options.caFile !== undefined && url.protocol === 'mqtts:') {
      const read = readCredentialFile(options.caFile);
      if (read.ok) ca = read.value;
      else problems.warn({ broker, caFile: options.caFile, error: read.reason }, 'cannot read the MQTT CA file');
    }
  };
  refreshCredentials();

  const clientOptions: IClientOptions = {
    clientId: options.clientId ?? `panic-pair-${randomBytes(4).toString('hex')}`,
    protocolVersion: 4,
    clean: true,
    // Subscriptions are renewed explicitly on every connect, whatever the session state.
    resubscribe: false,
    reconnectPeriod: delayFor(0),
    // A refused login is retried too: the installer may fix the password file meanwhile.
    reconnectOnConnackError: true,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    will: { topic: status, payload: Buffer.from('offline' satisfies StatusPayload), qos: 1, retain: true },
    username: options.username,
    password,
    ca,
    // TLS certificates are always verified; there is deliberately no way to turn that off.
    rejectUnauthorized: true,
    // mqtt-packet's default pre-builds 65,536 two-byte Buffers at the first write, about 7 MB of
    // heap held for good, to spare an allocation per packet; the daemon writes a few packets a
    // minute, so the allocation is the better deal (bench/memory.mjs).
    writeCache: false,
    // mqtt.js reports every packet through the `debug` package, several calls a message even when
    // DEBUG is unset: a tenth of the daemon's time under a flood of announcements. The daemon logs
    // its broker connection itself (connected, lost, problems), so that packet trace is given up.
    log: ignoreMqttTrace,
  };
  const client: MqttClient = connect(url.toString(), clientOptions);

  const setState = (next: MqttState): void => {
    if (next === current) return;
    current = next;
    for (const listener of listeners) listener(next);
  };

  client.on('connect', () => {
    attempt = 0;
    client.options.reconnectPeriod = delayFor(0);
    logger.info({ broker }, 'connected to the MQTT broker');
    client.publish(status, 'online' satisfies StatusPayload, QOS1_RETAINED, noteFailure);
    const filters = subscriptions.filters();
    if (filters.length > 0) client.subscribe(filters, { qos: 0 }, noteFailure);
    setState('connected');
  });
  // mqtt.js arms its next timer from reconnectPeriod when an attempt fails, so setting it here,
  // as each attempt starts, gives the capped exponential backoff.
  client.on('reconnect', () => {
    attempt += 1;
    client.options.reconnectPeriod = delayFor(attempt);
    refreshCredentials();
    client.options.password = password;
    client.options.ca = ca;
    setState('connecting');
  });
  client.on('close', () => {
    if (current === 'connected' && closing === undefined) logger.warn({ broker }, 'lost the MQTT broker; reconnecting');
    setState('disconnected');
  });
  client.on('error', (error) => noteFailure(error));
  client.on('message', (topic, payload) => subscriptions.dispatch(topic, payload, onHandlerError));

  function noteFailure(error?: Error | null): void {
    if (error && closing === undefined) problems.warn({ broker, error: messageOf(error) }, 'MQTT connection problem');
  }
  function onHandlerError(error: unknown, topic: string): void {
    handlerErrors.warn({ topic, error: messageOf(error) }, 'an MQTT message handler failed');
  }

  return {
    state: () => current,
    subscribe(filter, onMessage) {
      const isNew = subscriptions.add(filter, onMessage);
      if (isNew && client.connected) client.subscribe(filter, { qos: 0 }, noteFailure);
    },
    publishRetained(topic, payload) {
      if (closing !== undefined) return;
      client.publish(topic, payload, QOS1_RETAINED, noteFailure);
    },
    onStateChange(listener) {
      listeners.push(listener);
    },
    close() {
      closing ??= closeClient(client, status, options.closeTimeoutMs ?? 3_000).then(() => {
        problems.flush();
        handlerErrors.flush();
        setState('disconnected');
      });
      return closing;
    },
  };
}

async function closeClient(client: MqttClient, status: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  if (client.connected) {
    await within(deadline, new Promise<void>((resolve) => client.publish(status, 'offline' satisfies StatusPayload, QOS1_RETAINED, () => resolve())));
  }
  const ended = await within(deadline, new Promise<void>((resolve) => client.end(!client.connected, {}, () => resolve())));
  // A broker that stopped answering mid-goodbye must not hold up the daemon's shutdown.
  if (!ended) client.stream?.destroy();
}

/** Resolves true when the promise settled before the deadline. */
function within(deadline: number, promise: Promise<void>): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, deadline - performance.now()));
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function ignoreMqttTrace(): void {}

function parseBrokerUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PanicPairError('config', 'the MQTT broker address is not a URL; expected mqtt://host:port or mqtts://host:port');
  }
  if (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') {
    throw new PanicPairError('config', `the MQTT broker address must start with mqtt:// or mqtts://, not ${url.protocol}//`);
  }
  return url;
}
