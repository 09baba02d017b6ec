import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMqtt } from '../../src/check/mqtt-check.js';
import { loadConfig } from '../../src/config/index.js';
import { startBroker, type TestBroker } from '../support/broker.js';

// `check` on each broken broker names the right fix: brokers set up as Home Assistant's
// Mosquitto add-on is (TLS with a CA of its own, a password file, an ACL), with the dynamic-security
// plugin, and without MQTT 5.

let dir: string;
let passwordFile: string;
const brokers: TestBroker[] = [];
const PREFIX = 'fixes';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-mqtt-fixes-'));
  passwordFile = join(dir, 'mqtt-password');
  await writeFile(passwordFile, 'hub-secret\n', { mode: 0o600 });
});
afterAll(async () => {
  for (const broker of brokers) await broker.stop();
  await rm(dir, { recursive: true, force: true });
});

async function broker(options: Parameters<typeof startBroker>[0]): Promise<TestBroker> {
  const started = await startBroker(options);
  brokers.push(started);
  return started;
}

function check(env: Record<string, string>) {
  const config = loadConfig({
    env: {
      PANIC_PAIR_MQTT_PREFIX: PREFIX,
      PANIC_PAIR_MQTT_USERNAME: 'hub',
      PANIC_PAIR_MQTT_PASSWORD_FILE: passwordFile,
      // No daemon runs there: check cannot ask one about its publishes.
      PANIC_PAIR_STATE_DIR: join(dir, 'state'),
      ...env,
    },
    defaultConfigFile: join(dir, 'absent.json'),
  });
  return checkMqtt(config);
}

const addOnAcl = ['user hub', `topic read ${PREFIX}/announce`, `topic write ${PREFIX}/#`];

describe('a TLS broker with a CA of its own, a password file and an ACL', () => {
  let tls: TestBroker;
  beforeAll(async () => {
    tls = await broker({ users: { hub: 'hub-secret' }, acl: addOnAcl, tls: { names: ['DNS:localhost', 'IP:127.0.0.1'] } });
  });

  it('passes with the CA file, and says MQTT 5 is spoken', async () => {
    const result = await check({ PANIC_PAIR_MQTT_URL: tls.address, PANIC_PAIR_MQTT_CA_FILE: tls.caFile! });
    expect(result.ok, result.detail).toBe(true);
    expect(result.detail).toBe(
      `connected to ${tls.address} as hub (MQTT 5); subscribed to ${PREFIX}/announce; a publish the broker refuses is shown by \`panic-pair status\` once the daemon runs`,
    );
  });

  it('says when Home Assistant discovery is on, and under which prefix', async () => {
    const result = await check({ PANIC_PAIR_MQTT_URL: tls.address, PANIC_PAIR_MQTT_CA_FILE: tls.caFile!, PANIC_PAIR_HOMEASSISTANT: 'true' });
    expect(result.ok, result.detail).toBe(true);
    expect(result.detail).toContain(`subscribed to ${PREFIX}/announce; Home Assistant discovery on, under homeassistant/; `);
  });

  it('without the CA file: points at PANIC_PAIR_MQTT_CA_FILE, and how to see the certificate\'s issuer and names', async () => {
    const result = await check({ PANIC_PAIR_MQTT_URL: tls.address });
    expect(result.ok).toBe(false);
    expect(result.fix).toBe(
      "point PANIC_PAIR_MQTT_CA_FILE at the PEM file of the CA that signed the broker's certificate " +
        `(\`openssl s_client -connect 127.0.0.1:${tls.port} -showcerts </dev/null\` shows its issuer and names)`,
    );
    expect(result.fix).not.toContain('network');
  });

  it('mqtt:// aimed at the TLS port: the port may want mqtts://', async () => {
    const result = await check({ PANIC_PAIR_MQTT_URL: `mqtt://127.0.0.1:${tls.port}` });
    expect(result.ok).toBe(false);
    expect(result.fix).toContain(`mqtts://127.0.0.1:${tls.port}`);
  });

  it('a wrong password: the user name and the password file', async () => {
    const wrong = join(dir, 'wrong-password');
    await writeFile(wrong, 'not-it\n', { mode: 0o600 });
    const result = await check({ PANIC_PAIR_MQTT_URL: tls.address, PANIC_PAIR_MQTT_CA_FILE: tls.caFile!, PANIC_PAIR_MQTT_PASSWORD_FILE: wrong });
    expect(result.ok).toBe(false);
    expect(result.fix).toBe(`check PANIC_PAIR_MQTT_USERNAME and the password in ${wrong} (PANIC_PAIR_MQTT_PASSWORD_FILE); the broker must know that user with that password`);
    expect(result.detail).not.toContain('not-it');
  });

  it('a password file others can read is refused, as a token file is: chmod 600', async () => {
    const loose = join(dir, 'loose-password');
    await writeFile(loose, 'hub-secret\n');
    await chmod(loose, 0o644);
    const result = await check({ PANIC_PAIR_MQTT_URL: tls.address, PANIC_PAIR_MQTT_CA_FILE: tls.caFile!, PANIC_PAIR_MQTT_PASSWORD_FILE: loose });
    expect(result).toEqual({
      name: 'mqtt',
      ok: false,
      detail: `PANIC_PAIR_MQTT_PASSWORD_FILE ${loose} is readable by group or others (mode 0644)`,
      fix: `chmod 600 ${loose}`,
      readAtStart: true,
    });
  });
});

describe('a TLS broker whose certificate names another host', () => {
  it('points at the host name in PANIC_PAIR_MQTT_URL and the names the certificate holds', async () => {
    const named = await broker({ users: { hub: 'hub-secret' }, tls: { names: ['DNS:mqtt.hub.example'] } });
    const result = await check({ PANIC_PAIR_MQTT_URL: named.address, PANIC_PAIR_MQTT_CA_FILE: named.caFile! });
    expect(result.ok).toBe(false);
    expect(result.detail).toContain('does not name 127.0.0.1');
    expect(result.fix).toContain('mqtt.hub.example');
    expect(result.fix).toContain('PANIC_PAIR_MQTT_URL');
  });
});

describe('a plain broker', () => {
  it('mqtts:// aimed at a plain port: the port may want mqtt://', async () => {
    const plain = await broker({ users: { hub: 'hub-secret' } });
    const result = await check({ PANIC_PAIR_MQTT_URL: `mqtts://127.0.0.1:${plain.port}` });
    expect(result.ok).toBe(false);
    expect(result.fix).toContain('use mqtt:// for a plain listener');
  });
});

describe('a broker with the dynamic-security plugin that refuses the announce subscription', () => {
  it("fails with the fix: the broker's ACL must let the user subscribe to the topic", async () => {
    const dynsec = await broker({
      users: { hub: 'hub-secret' },
      dynsec: { hub: [{ acltype: 'publishClientSend', topic: `${PREFIX}/#`, allow: true }] },
    });
    const result = await check({ PANIC_PAIR_MQTT_URL: dynsec.address });
    expect(result.ok).toBe(false);
    expect(result.detail).toContain(`refuses the subscription to ${PREFIX}/announce (not authorized (0x87))`);
    expect(result.fix).toBe(`the broker's ACL must let user hub subscribe to ${PREFIX}/announce`);
  });
});

describe('a broker without MQTT 5 (aedes, the embedded demo broker)', () => {
  it('fails on a refused subscription there too, with the fix', async () => {
    const old = await broker({ kind: 'embedded', refuseSubscriptions: [`${PREFIX}/announce`] });
    const result = await check({ PANIC_PAIR_MQTT_URL: old.address, PANIC_PAIR_MQTT_PASSWORD_FILE: '' });
    expect(result.ok).toBe(false);
    expect(result.detail).toContain(`(MQTT 3.1.1), but the broker refuses the subscription to ${PREFIX}/announce (refused (0x80))`);
    expect(result.fix).toBe(`the broker's ACL must let user hub subscribe to ${PREFIX}/announce`);
  });

  it('passes in MQTT 3.1.1, saying that refused publishes cannot be seen', async () => {
    const old = await broker({ kind: 'embedded' });
    const result = await check({ PANIC_PAIR_MQTT_URL: old.address, PANIC_PAIR_MQTT_USERNAME: '', PANIC_PAIR_MQTT_PASSWORD_FILE: '' });
    expect(result.ok, result.detail).toBe(true);
    expect(result.detail).toContain('(MQTT 3.1.1)');
    expect(result.detail).toContain('a publish it refuses cannot be seen');
  });
});
