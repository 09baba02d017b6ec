import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectMqtt, type MqttConnection, type MqttConnectionOptions, type MqttState } from '../../src/mqtt/connection.js';
import { PanicPairError } from '../../src/errors.js';
import { silentLogger } from '../../src/log/logger.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { startLinkProxy } from '../support/link-proxy.js';
import { captureLog } from '../support/log-capture.js';
import { observe, publishOnce } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

const fastReconnect = (attempt: number): number => Math.min(50 * 2 ** attempt, 400);
const cleanups: Array<() => Promise<void>> = [];
let prefixes = 0;

function connect(options: Partial<MqttConnectionOptions> & { url: string }): MqttConnection {
  const connection = connectMqtt({ prefix: `pp${++prefixes}`, logger: silentLogger(), reconnectDelay: fastReconnect, ...options });
  cleanups.push(() => connection.close());
  return connection;
}

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('connectMqtt', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker.stop();
  });

  it('publishes a retained `online` on connect and a retained `offline` on close()', async () => {
    const connection = connect({ url: broker.url, prefix: 'hub1' });
    expect(connection.state()).toBe('connecting');
    await waitFor(() => connection.state() === 'connected', { what: 'the connection' });

    const first = await observe(broker.url, 'hub1/status');
    cleanups.push(() => first.close());
    await waitFor(() => first.messages[0], { what: 'the retained status' });
    expect(first.messages[0]).toEqual({ topic: 'hub1/status', payload: 'online', retain: true, qos: 1 });

    await connection.close();
    expect(connection.state()).toBe('disconnected');
    const later = await observe(broker.url, 'hub1/status');
    cleanups.push(() => later.close());
    await waitFor(() => later.messages[0], { what: 'the retained status after close()' });
    expect(later.messages[0]).toEqual({ topic: 'hub1/status', payload: 'offline', retain: true, qos: 1 });
  });

  it('leaves `offline` through the will when the link drops without a goodbye, then comes back online', async () => {
    const proxy = await startLinkProxy(broker.port);
    cleanups.push(() => proxy.close());
    const connection = connect({ url: proxy.url, prefix: 'hub2' });
    await waitFor(() => connection.state() === 'connected', { what: 'the connection' });
    const watcher = await observe(broker.url, 'hub2/status');
    cleanups.push(() => watcher.close());
    await waitFor(() => watcher.payloads('hub2/status').includes('online'), { what: 'online' });

    proxy.cut();
    await waitFor(() => watcher.payloads('hub2/status').includes('offline'), { what: 'the will' });
    await waitFor(() => watcher.payloads('hub2/status').at(-1) === 'online' && connection.state() === 'connected', { what: 'online again' });
    expect(watcher.payloads('hub2/status')).toEqual(['online', 'offline', 'online']);
  });

  it('reconnects after a broker restart, publishes `online` again and renews its subscriptions', async () => {
    const connection = connect({ url: broker.url, prefix: 'hub3' });
    const states: MqttState[] = [];
    connection.onStateChange((state) => states.push(state));
    const received: string[] = [];
    connection.subscribe('hub3/announce', (_topic, payload) => received.push(payload.toString()));
    await waitFor(() => connection.state() === 'connected', { what: 'the connection' });
    await publishOnce(broker.url, 'hub3/announce', ['before']);
    await waitFor(() => received.includes('before'), { what: 'the announcement before the restart' });

    await broker.restart();
    await waitFor(() => states.includes('disconnected') && connection.state() === 'connected', { what: 'the reconnection' });
    // The restarted broker kept nothing (persistence is off): this retained `online` is new.
    const watcher = await observe(broker.url, 'hub3/status');
    cleanups.push(() => watcher.close());
    await waitFor(() => watcher.messages[0], { what: 'the retained status' });
    expect(watcher.messages[0]).toMatchObject({ payload: 'online', retain: true });

    await waitFor(
      async () => {
        await publishOnce(broker.url, 'hub3/announce', ['after']);
        return received.includes('after');
      },
      { what: 'the announcement after the restart' },
    );
    expect(states.at(-1)).toBe('connected');
  });

  it('matches wildcard subscriptions and keeps running when a handler throws', async () => {
    const connection = connect({ url: broker.url, prefix: 'hub4' });
    const topics: string[] = [];
    connection.subscribe('home/+/BTtoMQTT/+', () => {
      throw new Error('handler bug');
    });
    connection.subscribe('home/+/BTtoMQTT/+', (topic) => topics.push(topic));
    await waitFor(() => connection.state() === 'connected', { what: 'the connection' });
    await publishOnce(broker.url, 'home/gw1/BTtoMQTT/AABB', ['{}']);
    await publishOnce(broker.url, 'home/gw1/LWT', ['online']);
    await publishOnce(broker.url, 'home/gw2/BTtoMQTT/CCDD', ['{}']);
    await waitFor(() => topics.length === 2, { what: 'both gateway messages' });
    expect(topics).toEqual(['home/gw1/BTtoMQTT/AABB', 'home/gw2/BTtoMQTT/CCDD']);
    expect(connection.state()).toBe('connected');
  });

  it('refuses an address that is not mqtt:// or mqtts:// as a configuration error', () => {
    expect(() => connectMqtt({ url: 'http://127.0.0.1:1883', prefix: 'p', logger: silentLogger() })).toThrow(PanicPairError);
    expect(() => connectMqtt({ url: 'not a url', prefix: 'p', logger: silentLogger() })).toThrow(/mqtt:\/\//);
  });
});

describe('connectMqtt without a broker', () => {
  it('starts without throwing, logs the problem, and connects once the broker comes up', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    await broker.stop();
    const log = captureLog();
    const connection = connect({ url: broker.url, prefix: 'late', logger: log.logger });
    const received: string[] = [];
    connection.subscribe('late/announce', (_topic, payload) => received.push(payload.toString()));
    connection.publishRetained('late/entitlement', '{"queued":true}');
    expect(['connecting', 'disconnected']).toContain(connection.state());
    await waitFor(() => connection.state() === 'disconnected', { what: 'the failed first attempt' });
    await waitFor(() => log.lines.some((line) => line.msg === 'MQTT connection problem'), { what: 'the logged problem' });

    await broker.restart();
    await waitFor(() => connection.state() === 'connected', { what: 'the connection once the broker is up' });
    await publishOnce(broker.url, 'late/announce', ['hello']);
    await waitFor(() => received.includes('hello'), { what: 'the announcement' });
    // What was published while the broker was away went out once it came back.
    const watcher = await observe(broker.url, 'late/entitlement');
    cleanups.push(() => watcher.close());
    await waitFor(() => watcher.messages[0], { what: 'the queued retained message' });
    expect(watcher.messages[0]).toMatchObject({ payload: '{"queued":true}', retain: true });
  });

  it('closes promptly while the broker is still away', async () => {
    const broker = await startBroker();
    await broker.stop();
    const connection = connect({ url: broker.url, prefix: 'gone', closeTimeoutMs: 60_000 });
    await waitFor(() => connection.state() === 'disconnected', { what: 'the failed first attempt' });
    let closed = false;
    void connection.close().then(() => (closed = true));
    // Without a broker there is no goodbye to wait for: close() must not sit out its 60 s bound.
    await waitFor(() => closed, { what: 'close()' });
    expect(connection.state()).toBe('disconnected');
  });
});

describe('connectMqtt with a password', () => {
  let broker: TestBroker;
  let dir: string;
  beforeAll(async () => {
    broker = await startBroker({ users: { hub: 'correct-horse-battery' } });
    dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-mqtt-'));
  });
  afterAll(async () => {
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the password file again at each attempt, and never logs the password', async () => {
    const passwordFile = path.join(dir, 'password');
    writeFileSync(passwordFile, 'wrong-password-staple\n', { mode: 0o600 });
    const log = captureLog();
    const connection = connect({ url: broker.url, prefix: 'auth', username: 'hub', passwordFile, logger: log.logger });
    await waitFor(() => log.lines.some((line) => String(line.error).includes('Not authorized') || String(line.error).includes('Bad username')), {
      what: 'the refused login',
    });
    expect(connection.state()).not.toBe('connected');

    writeFileSync(passwordFile, '  correct-horse-battery\n');
    await waitFor(() => connection.state() === 'connected', { what: 'the login with the new password' });
    expect(log.text()).not.toContain('correct-horse-battery');
    expect(log.text()).not.toContain('wrong-password-staple');
  });
});
