import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runBinary } from '../support/binary.js';
import { bridgeConfig } from '../support/bridged-hub.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { findExecutable } from '../support/installed.js';
import { publishOnce } from '../support/mqtt-observer.js';
import { unprivileged } from '../support/unprivileged.js';
import { waitFor } from '../support/wait.js';

// `panic-pair bridge-config`: the bridge it prints, its refusals of bad
// flags (exit 2, naming the flag), and a real mosquitto that takes the printed file as it is and
// carries a hub's topics to a TLS central broker.

/** The printed directives, comments left out: key to its values. */
function directives(text: string): Map<string, string> {
  const lines = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  return new Map(lines.map((line) => [line.split(' ')[0]!, line.slice(line.indexOf(' ') + 1)]));
}

let dir: string;
beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-bridge-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the printed bridge', () => {
  it('carries <prefix>/# out under hubs/<hub-id>/, with its own client id and notification topic', async () => {
    const result = await bridgeConfig(['--central', 'mqtts://central.example.com:8883', '--hub-id', 'hub-1']);
    expect(result.code, result.stderr).toBe(0);
    const lines = directives(result.stdout);
    expect(Object.fromEntries(lines)).toEqual({
      connection: 'panic-pair-hub-1',
      address: 'central.example.com:8883',
      remote_clientid: 'panic-pair-hub-hub-1',
      bridge_protocol_version: 'mqttv311',
      try_private: 'true',
      cleansession: 'true',
      keepalive_interval: '60',
      start_type: 'automatic',
      restart_timeout: '5 60',
      notifications: 'true',
      notification_topic: 'hubs/hub-1/bridge/state',
      topic: '# out 1 panic-pair/ hubs/hub-1/',
      // mqtts:// without --cafile: the system's CAs.
      bridge_capath: '/etc/ssl/certs',
    });
  });

  it("takes the hub's configured prefix, and default ports; mqtt:// has no TLS lines", async () => {
    const fromEnv = await bridgeConfig(['--central', 'mqtt://10.0.0.5', '--hub-id', 'site_7.b'], { PANIC_PAIR_MQTT_PREFIX: 'home/panic' });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const lines = directives(fromEnv.stdout);
    expect(lines.get('topic')).toBe('# out 1 home/panic/ hubs/site_7.b/');
    expect(lines.get('address')).toBe('10.0.0.5:1883');
    expect([...lines.keys()].filter((key) => key.startsWith('bridge_') && key !== 'bridge_protocol_version')).toEqual([]);
    const fromFlag = await bridgeConfig(['--central', 'mqtts://central', '--hub-id', 'h', '--mqtt-prefix', 'pp']);
    expect(directives(fromFlag.stdout).get('address')).toBe('central:8883');
    expect(directives(fromFlag.stdout).get('topic')).toBe('# out 1 pp/ hubs/h/');
  });
});

describe('bad flags: exit 2, naming the flag', () => {
  const central = ['--central', 'mqtts://central.example.com:8883'];
  const hub = ['--hub-id', 'hub-1'];
  const cases: Array<[string, () => string[], RegExp]> = [
    ['a hub id with /', () => [...central, '--hub-id', 'a/b'], /--hub-id "a\/b"/],
    ['a hub id with +', () => [...central, '--hub-id', 'a+'], /--hub-id "a\+"/],
    ['a hub id with #', () => [...central, '--hub-id', '#'], /--hub-id "#"/],
    ['a hub id with a space', () => [...central, '--hub-id', 'a b'], /--hub-id "a b"/],
    ['an empty hub id', () => [...central, '--hub-id', ''], /--hub-id ""/],
    ['a hub id of 65 characters', () => [...central, '--hub-id', 'x'.repeat(65)], /--hub-id/],
    ['an http URL', () => ['--central', 'http://central.example.com', ...hub], /--central must be an mqtt:\/\/ or mqtts:\/\/ URL/],
    ['no URL at all', () => ['--central', 'central.example.com', ...hub], /--central/],
    ['a password in the URL', () => ['--central', 'mqtts://hub:secret@central.example.com', ...hub], /--central must not carry a user or password/],
    ['--certfile without --keyfile', () => [...central, ...hub, '--certfile', path.join(dir, 'cert.pem')], /--certfile needs --keyfile/],
    ['a CA file that is not there', () => [...central, ...hub, '--cafile', path.join(dir, 'absent.pem')], /--cafile .*absent\.pem does not exist/],
    ['a CA file that is no PEM', () => [...central, ...hub, '--cafile', path.join(dir, 'not-pem.txt')], /--cafile .*not-pem\.txt holds no PEM block/],
    ['a key that is a directory', () => [...central, ...hub, '--certfile', path.join(dir, 'cert.pem'), '--keyfile', dir], /--keyfile .* is not a regular file/],
    ['TLS files for mqtt://', () => ['--central', 'mqtt://central.example.com', ...hub, '--cafile', path.join(dir, 'cert.pem')], /--cafile needs an mqtts:\/\/ --central/],
  ];
  beforeAll(() => {
    writeFileSync(path.join(dir, 'cert.pem'), '-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n');
    writeFileSync(path.join(dir, 'not-pem.txt'), 'hello\n');
  });

  it.each(cases)('%s', async (_name, args, message) => {
    const result = await bridgeConfig(args());
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  // Root reads any file: run by a user without root's privileges (nobody, where the suite runs as root).
  it('a CA file this user cannot read', async () => {
    const open = mkdtempSync(path.join(tmpdir(), 'panic-pair-bridge-locked-'));
    try {
      chmodSync(open, 0o755);
      const locked = path.join(open, 'locked.pem');
      writeFileSync(locked, '-----BEGIN CERTIFICATE-----\n', { mode: 0o000 });
      const args = ['bridge-config', ...central, ...hub, '--cafile', locked];
      const result = await runBinary(args, { PATH: process.env.PATH, PANIC_PAIR_CONFIG: '' }, { timeoutMs: 30_000, ...(unprivileged() ?? {}) });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/--cafile .*locked\.pem cannot be read by this user/);
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });
});

describe.skipIf(findExecutable('mosquitto') === undefined)('a hub broker running the printed bridge (mosquitto)', () => {
  let central: TestBroker;
  let hub: TestBroker | undefined;
  let watcher: MqttClient;
  const seen = new Map<string, string>();
  beforeAll(async () => {
    // The central broker asks every client for a certificate its CA signed, and refuses one without.
    central = await startBroker({ tls: { names: ['IP:127.0.0.1'] }, extraConfig: 'require_certificate true' });
    const caDir = path.dirname(central.caFile!);
    const tls = { ca: readFileSync(central.caFile!), cert: readFileSync(path.join(caDir, 'server.pem')), key: readFileSync(path.join(caDir, 'server.key')) };
    watcher = await connectAsync(central.address, { ...tls, reconnectPeriod: 100 });
    watcher.on('message', (topic, payload) => seen.set(topic, payload.toString()));
    await watcher.subscribeAsync('hubs/#', { qos: 1 });
  });
  afterAll(async () => {
    await watcher?.endAsync(true);
    await hub?.stop();
    await central?.stop();
  });

  it('refuses a client without a certificate: what the bridge below could not do', async () => {
    const refused = await connectAsync(central.address, { ca: readFileSync(central.caFile!), reconnectPeriod: 0, connectTimeout: 10_000 }).then(
      async (client) => {
        await client.endAsync(true);
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(Error);
  });

  it('connects over TLS with the CA and the client certificate given, and carries the retained health', async () => {
    const caDir = path.dirname(central.caFile!);
    const [certFile, keyFile] = [path.join(caDir, 'server.pem'), path.join(caDir, 'server.key')];
    const printed = await bridgeConfig([
      '--central', central.address, '--hub-id', 'tls-hub',
      '--cafile', central.caFile!, '--certfile', certFile, '--keyfile', keyFile,
    ], { PANIC_PAIR_MQTT_PREFIX: 'pp' });
    expect(printed.code, printed.stderr).toBe(0);
    const lines = directives(printed.stdout);
    expect([lines.get('bridge_cafile'), lines.get('bridge_certfile'), lines.get('bridge_keyfile')]).toEqual([central.caFile, certFile, keyFile]);
    // A bridge that sent no certificate would be refused, as the client above was.
    hub = await startBroker({ extraConfig: printed.stdout });
    await waitFor(() => seen.get('hubs/tls-hub/bridge/state') === '1', { timeoutMs: 15_000, what: 'the bridge to connect to the central broker' });
    await publishOnce(hub.url, 'pp/health', ['{"healthy":true}'], { retain: true });
    await waitFor(() => seen.get('hubs/tls-hub/health') === '{"healthy":true}', { what: 'the health under hubs/tls-hub/' });
  });
});
