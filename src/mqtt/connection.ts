import { randomBytes } from 'node:crypto';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { brokerAddress } from './broker-address.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { RateLimitedWarning } from '../log/rate-limited.js';
import { readMqttPassword } from '../config/secret-file.js';
import type { RefusalReport } from '../status/status-report.js';
import { protocolName, reasonWords, type ProtocolName } from './broker-answers.js';
import { checkedRequests } from './checked-requests.js';
import { describeConnectFailure } from './connect-failure.js';
import { brokerForLogs, parseBrokerUrl, readCredentialFile } from './credentials.js';
import { maximumPacketSize, oversized } from './packet-limit.js';
import { watchProtocol } from './protocol-fallback.js';
import { reconnectDelay } from './reconnect-delay.js';
import { BrokerRefusals } from './refusals.js';
import { SubscriptionTable, type MessageHandler } from './subscriptions.js';
import { statusTopic, type StatusPayload } from './topics.js';

export type MqttState = 'connecting' | 'connected' | 'disconnected';

export interface MqttConnection {
  state(): MqttState;
  /** Remembered, and subscribed again on every (re)connect. */
  subscribe(filter: string, onMessage: MessageHandler): void;
  /**
   * QoS 1, retained; queued by mqtt.js while the broker is away. With `now`, written to the socket
   * at once rather than with the rest of this turn's packets.
   */
  publishRetained(topic: string, payload: string, options?: { now?: boolean }): void;
  onStateChange(listener: (state: MqttState) => void): void;
  /** Publishes `offline` (a clean disconnect does not fire the will), then disconnects; bounded in time. */
  close(): Promise<void>;
}

/** What the broker answered the connection: for `status`, `check` and `pair`. */
export interface BrokerAnswers {
  /** MQTT 5 or 3.1.1: the version of the current (or latest) connection; undefined before the first. */
  protocol(): ProtocolName | undefined;
  /** Why the broker is not connected (the latest failure), while it is not. */
  reason(): string | undefined;
  /** Subscriptions and (MQTT 5) publishes the broker refused, until it grants or accepts them. */
  refusals(): RefusalReport;
  /** Called whenever what the broker refuses changes; returns the way to stop listening. */
  onRefusalChange(listener: () => void): () => void;
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
  /** How often refused subscriptions and publishes are asked again while connected; default 60 s. */
  refusalRetryMs?: number;
  /** The largest payload any reader of the hub takes (packet-limit.ts); unbounded when undefined. */
  maxPayloadBytes?: number;
  /** A message past `maxPayloadBytes`, dropped unread: to be counted as invalid. */
  onOversized?(topic: string, bytes: number): void;
}

const QOS1_RETAINED = { qos: 1, retain: true } as const;
/** The broker sends the last will (`offline`) at most 1.5 times this after the hub falls silent. */
export const KEEPALIVE_SECONDS = 60;

// Never throws once started: a missing broker is a state (shown by `status`), not a failure of the
// daemon, which goes on pairing over BLE meanwhile.
export function connectMqtt(options: MqttConnectionOptions): MqttConnection & BrokerAnswers {
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
  let failure: string | undefined;
  let everConnected = false;
  const refusals = new BrokerRefusals();
  const failureContext = { broker, url, username: options.username, passwordFile: options.passwordFile };

  const refreshCredentials = (): void => {
    if (options.passwordFile !== undefined) {
      // The secret-file rule (owner-only) holds at every read; on a failed read the last good
      // password stays: better than connecting with none.
      try {
        password = readMqttPassword(options.passwordFile).reveal();
      } catch (error) {
        problems.warn({ broker, error: messageOf(error) }, 'cannot read the MQTT password file');
      }
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
    // MQTT 5 first: its acknowledgements say why a publish is refused. protocol-fallback.ts
    // switches to 3.1.1 for a broker that does not speak it.
    protocolVersion: 5,
    clean: true,
    // Subscriptions are renewed explicitly on every connect, whatever the session state.
    resubscribe: false,
    reconnectPeriod: delayFor(0),
    // A refused login is retried too: the installer may fix the password file meanwhile.
    reconnectOnConnackError: true,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    keepalive: KEEPALIVE_SECONDS,
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
    ...(options.maxPayloadBytes === undefined ? {} : { properties: { maximumPacketSize: maximumPacketSize(options.maxPayloadBytes) } }),
  };
  const client: MqttClient = connect({ ...brokerAddress(url), ...clientOptions });
  const protocol = watchProtocol(client, () => {
    logger.info({ broker }, 'the broker does not speak MQTT 5; speaking MQTT 3.1.1 (refused publishes cannot be seen)');
    // Straight to the next attempt: this is no failure to back off from.
    client.options.reconnectPeriod = 50;
    attempt = -1;
  });
  const requests = checkedRequests({
    client,
    refusals,
    version: () => protocol.version(),
    onRefusal: (fields, message) => problems.warn({ broker, ...fields, user: options.username }, message),
    onFailure: (error) => noteFailure(error),
  });

  const setState = (next: MqttState): void => {
    if (next === current) return;
    current = next;
    for (const listener of listeners) listener(next);
  };

  client.on('connect', () => {
    attempt = 0;
    everConnected = true;
    failure = undefined;
    requests.connected();
    client.options.reconnectPeriod = delayFor(0);
    logger.info({ broker, protocol: `MQTT ${protocolName(protocol.version())}` }, 'connected to the MQTT broker');
    requests.publish(status, 'online' satisfies StatusPayload);
    for (const filter of subscriptions.filters()) requests.subscribe(filter);
    setState('connected');
    // What the broker refused before, unless published again by a state listener just now.
    requests.retryRefused(true);
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
    // An error just before the close (a keepalive time-out, a reset) says more than the close.
    if (current === 'connected' && failure === undefined) failure = 'the broker closed the connection';
    setState('disconnected');
  });
  // MQTT 5: a broker that ends the connection says why (an administrator, a shutdown, a time-out).
  client.on('disconnect', (packet) => {
    if (packet.reasonCode !== undefined && packet.reasonCode > 0) failure = `the broker disconnected the hub: ${reasonWords(packet.reasonCode, 5)}`;
  });
  client.on('error', (error) => {
    failure = describeConnectFailure(error, failureContext).reason;
    noteFailure(error);
  });
  // A fixed ACL is picked up without a reconnect: refused requests are asked again now and then.
  const retry = setInterval(() => {
    if (client.connected && closing === undefined) requests.retryRefused(false);
  }, options.refusalRetryMs ?? 60_000);
  retry.unref();
  client.on('message', (topic, payload, packet) => {
    if (oversized(payload, options.maxPayloadBytes)) options.onOversized?.(topic, payload.length);
    else subscriptions.dispatch(topic, payload, onHandlerError, packet.retain);
  });

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
      if (isNew && client.connected) requests.subscribe(filter);
    },
    publishRetained(topic, payload, publishing) {
      if (closing !== undefined) return;
      requests.publish(topic, payload);
      // mqtt.js corks the socket for each packet and uncorks it on the next tick, which comes only
      // once every promise continuation queued in this turn has run: after a link, the link job's
      // whole ending. A state someone waits for is written now, 0.6 to 1 ms sooner.
      if (publishing?.now === true) client.stream?.uncork();
    },
    onStateChange(listener) {
      listeners.push(listener);
    },
    protocol: () => (everConnected ? protocolName(protocol.version()) : undefined),
    reason: () => (current === 'connected' ? undefined : (failure ?? (everConnected ? undefined : 'not connected yet'))),
    refusals: () => refusals.report(),
    onRefusalChange: (listener) => refusals.onChange(listener),
    close() {
      clearInterval(retry);
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
