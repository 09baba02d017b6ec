import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMqtt, type BrokerAnswers, type MqttConnection, type MqttConnectionOptions } from '../../src/mqtt/connection.js';
import { silentLogger } from '../../src/log/logger.js';
import { startBroker, type BrokerOptions, type TestBroker } from '../support/broker.js';
import type { DynsecAcl } from '../support/broker-access.js';
import { captureLog } from '../support/log-capture.js';
import { observe } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// What the broker refuses is seen: every SUBACK and (MQTT 5) PUBACK is checked, at the
// first connect and at each one after, and the protocol falls back to 3.1.1 by itself.

const fastReconnect = (attempt: number): number => Math.min(50 * 2 ** attempt, 400);
const cleanups: Array<() => Promise<void>> = [];
const long = { timeoutMs: 20_000 };

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function broker(options: BrokerOptions): Promise<TestBroker> {
  const started = await startBroker(options);
  cleanups.push(() => started.stop());
  return started;
}

function connect(options: Partial<MqttConnectionOptions> & { url: string; prefix: string }): MqttConnection & BrokerAnswers {
  const connection = connectMqtt({ logger: silentLogger(), reconnectDelay: fastReconnect, ...options });
  cleanups.push(() => connection.close());
  return connection;
}

const users = { hub: 'hub-secret', admin: 'admin-secret' };
const everything: DynsecAcl[] = [
  { acltype: 'publishClientSend', topic: '#', allow: true },
  { acltype: 'subscribePattern', topic: '#', allow: true },
];

describe('a broker with the dynamic-security plugin', () => {
  it('refuses the announce subscription: named with its reason, and the hub keeps running', async () => {
    const server = await broker({
      users,
      observer: 'admin',
      dynsec: { admin: everything, hub: [{ acltype: 'publishClientSend', topic: 'dyn1/#', allow: true }] },
    });
    const log = captureLog();
    const connection = connect({ url: server.address, prefix: 'dyn1', username: 'hub', passwordFile: passwordFile('hub-secret'), logger: log.logger });
    connection.subscribe('dyn1/announce', () => undefined);
    await waitFor(() => connection.refusals().subscriptions.length > 0, { what: 'the refused subscription', ...long });
    expect(connection.refusals().subscriptions).toEqual([{ filter: 'dyn1/announce', reason: 'not authorized (0x87)' }]);
    expect(connection.state()).toBe('connected');
    expect(connection.protocol()).toBe('5');
    expect(log.lines.some((line) => line.msg?.includes('refused a subscription') && line.filter === 'dyn1/announce')).toBe(true);
    expect(log.text()).not.toContain('hub-secret');
  });

  it('checks the subscriptions made again after a reconnect', async () => {
    const roles: Record<string, DynsecAcl[]> = { admin: everything, hub: everything };
    const options: BrokerOptions = { users, observer: 'admin', dynsec: roles };
    const server = await broker(options);
    const connection = connect({ url: server.address, prefix: 'dyn2', username: 'hub', passwordFile: passwordFile('hub-secret') });
    connection.subscribe('dyn2/announce', () => undefined);
    await waitFor(() => connection.state() === 'connected', { what: 'the connection', ...long });

    // The broker comes back with an ACL that no longer lets the hub subscribe.
    roles.hub = [{ acltype: 'publishClientSend', topic: '#', allow: true }];
    await server.restart();
    await waitFor(() => connection.refusals().subscriptions[0], { what: 'the refusal after the reconnect', ...long });
    expect(connection.refusals().subscriptions).toEqual([{ filter: 'dyn2/announce', reason: 'not authorized (0x87)' }]);

    // And once the ACL is fixed, the next connect grants it and the refusal is gone.
    roles.hub = everything;
    await server.restart();
    await waitFor(() => connection.state() === 'connected' && connection.refusals().subscriptions.length === 0, { what: 'the granted subscription', ...long });
  });
});

describe('a broker with an acl_file, under MQTT 5', () => {
  it('refuses a retained publish: counted, named, and published again at the next connect once allowed', async () => {
    const acl = ['user admin', 'topic readwrite #', 'user hub', 'topic readwrite acl1/status', 'topic read acl1/announce'];
    const options: BrokerOptions = { users, observer: 'admin', acl };
    const server = await broker(options);
    const connection = connect({ url: server.address, prefix: 'acl1', username: 'hub', passwordFile: passwordFile('hub-secret') });
    await waitFor(() => connection.state() === 'connected', { what: 'the connection', ...long });
    connection.publishRetained('acl1/devices/B1', '{"state":"linked"}');
    await waitFor(() => connection.refusals().publishes[0], { what: 'the refused publish', ...long });
    expect(connection.refusals()).toEqual({
      subscriptions: [],
      publishes: [{ topic: 'acl1/devices/B1', reason: 'not authorized (0x87)' }],
      publishesRefused: 1,
    });

    options.acl = [...acl, 'topic readwrite acl1/devices/#'];
    await server.restart();
    await waitFor(() => connection.state() === 'connected' && connection.refusals().publishes.length === 0, { what: 'the publish accepted again', ...long });
    const watcher = await observe(server.url, 'acl1/devices/B1');
    cleanups.push(() => watcher.close());
    const retained = await waitFor(() => watcher.messages.find((message) => message.retain), { what: 'the retained state', ...long });
    expect(retained.payload).toBe('{"state":"linked"}');
  });
});

describe('a fixed ACL, without a reconnect', () => {
  it('is picked up: refused subscriptions and publishes are asked again while connected', async () => {
    const acl = ['user admin', 'topic readwrite #', 'user hub', 'topic write acl2/status'];
    const options: BrokerOptions = { users, observer: 'admin', acl };
    const server = await broker(options);
    const connection = connect({
      url: server.address,
      prefix: 'acl2',
      username: 'hub',
      passwordFile: passwordFile('hub-secret'),
      refusalRetryMs: 100,
    });
    await waitFor(() => connection.state() === 'connected', { what: 'the connection', ...long });
    connection.publishRetained('acl2/entitlement', '{"entitled":true}');
    await waitFor(() => connection.refusals().publishes[0], { what: 'the refused publish', ...long });
    const states: string[] = [];
    connection.onStateChange((state) => states.push(state));

    // mosquitto reads its acl_file again on SIGHUP; the hub stays connected throughout.
    options.acl = [...acl, 'topic write acl2/entitlement'];
    server.reload();
    await waitFor(() => connection.refusals().publishes.length === 0, { what: 'the publish accepted after the reload', ...long });
    expect(states).toEqual([]);
    expect(connection.refusals().publishesRefused).toBeGreaterThanOrEqual(1);
  });
});

describe('a broker without MQTT 5', () => {
  it('is spoken to in MQTT 3.1.1 by itself (the embedded demo broker, aedes)', async () => {
    const server = await broker({ kind: 'embedded' });
    const log = captureLog();
    const connection = connect({ url: server.address, prefix: 'old1', logger: log.logger });
    const received: string[] = [];
    connection.subscribe('old1/announce', (_topic, payload) => received.push(payload.toString()));
    await waitFor(() => connection.state() === 'connected', { what: 'the connection', ...long });
    expect(connection.protocol()).toBe('3.1.1');
    expect(log.lines.some((line) => line.msg?.includes('speaking MQTT 3.1.1'))).toBe(true);
    const watcher = await observe(server.url, 'old1/status');
    cleanups.push(() => watcher.close());
    expect((await waitFor(() => watcher.messages[0], { what: 'the retained status' })).payload).toBe('online');
    expect(connection.refusals()).toEqual({ subscriptions: [], publishes: [], publishesRefused: 0 });
  });

  it('under 3.1.1 a refused subscription (SUBACK 0x80) is seen too', async () => {
    const server = await broker({ kind: 'embedded', refuseSubscriptions: ['old2/announce'] });
    const connection = connect({ url: server.address, prefix: 'old2' });
    connection.subscribe('old2/announce', () => undefined);
    connection.subscribe('old2/other', () => undefined);
    await waitFor(() => connection.refusals().subscriptions[0], { what: 'the refused subscription', ...long });
    expect(connection.protocol()).toBe('3.1.1');
    expect(connection.refusals().subscriptions).toEqual([{ filter: 'old2/announce', reason: 'refused (0x80)' }]);
  });
});

function passwordFile(password: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-refusals-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'password');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return file;
}
