import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/index.js';
import { startBroker, type BrokerOptions, type TestBroker } from '../support/broker.js';
import { runBinary } from '../support/binary.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';
import { bluetoothRefused } from '../support/bluetooth.js';

// The broker decides what the daemon may do: a subscription or publish it
// refuses makes the hub degraded, named in `status` with the broker's reason; `pair` stops at once
// when no source can hear the button; a password file others can read stops `run`.

let dir: string;
let passwordFile: string;
const USERS = { hub: 'hub-secret', admin: 'admin-secret' };
let broker: TestBroker | undefined;
let hub: DaemonHarness | undefined;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-refusals-'));
  passwordFile = path.join(dir, 'mqtt-password');
  writeFileSync(passwordFile, 'hub-secret\n', { mode: 0o600 });
});
afterEach(async () => {
  await hub?.close();
  await broker?.stop();
  hub = undefined;
  broker = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function hubOn(options: BrokerOptions, env: Record<string, string> = {}): Promise<DaemonHarness> {
  broker = await startBroker({ users: USERS, observer: 'admin', ...options });
  return startHarness({
    broker,
    ready: 'status',
    env: { PANIC_PAIR_MQTT_URL: broker.address, PANIC_PAIR_MQTT_USERNAME: 'hub', PANIC_PAIR_MQTT_PASSWORD_FILE: passwordFile, ...env },
  });
}

describe('a broker that refuses the announce subscription (dynamic security)', () => {
  it('makes the hub degraded, names the topic and reason, and `pair` fails at once with the fix', async () => {
    hub = await hubOn({ dynsec: { admin: [{ acltype: 'publishClientSend', topic: '#', allow: true }], hub: [{ acltype: 'publishClientSend', topic: '#', allow: true }] } });
    const announce = `${hub.prefix}/announce`;
    const report = await waitFor(async () => {
      const current = await hub!.status();
      return current.mqttRefusals?.subscriptions.length ? current : undefined;
    }, { what: 'the refused subscription in status', timeoutMs: 20_000 });
    expect(report.healthy).toBe(false);
    expect(report.mqtt).toBe('connected');
    expect(report.mqttProtocol).toBe('5');
    expect(report.mqttReason).toBe(`subscription to ${announce} refused: not authorized (0x87)`);
    expect(report.problems).toContain(
      `the MQTT broker refuses the subscription to ${announce} (not authorized (0x87)): the hub cannot hear it; the broker's ACL must let user hub subscribe to ${announce}`,
    );
    const plain = await hub.cli(['status']);
    expect(plain.code).toBe(1);
    expect(plain.stdout + plain.stderr).toContain(`refuses the subscription to ${announce}`);

    // BLE is off: no source can hear the button, so there is nothing to wait for.
    const pair = await hub.cli(['pair', 'DEAF-1', '--timeout', '60']);
    expect(pair.code).toBe(1);
    expect(pair.stderr).toContain('cannot hear DEAF-1');
    expect(pair.stderr).toContain(`the broker's ACL must let user hub subscribe to ${announce}`);
    const window = await hub.cli(['pair', '--window', '30']);
    expect(window.code).toBe(1);
    expect(window.stderr).toContain(`a pairing window would hear no button: the MQTT broker refuses the subscription to ${announce}`);
  });
});

describe.skipIf(!bluetoothRefused())('BLE unusable and the broker refusing the announce subscription (a machine without Bluetooth)', () => {
  it('`pair` stops at once, naming the BLE reason beside the broker\'s', async () => {
    hub = await hubOn({ dynsec: { admin: [{ acltype: 'publishClientSend', topic: '#', allow: true }], hub: [{ acltype: 'publishClientSend', topic: '#', allow: true }] } }, { PANIC_PAIR_BLE: 'auto' });
    await waitFor(async () => ((await hub!.status()).mqttRefusals?.subscriptions.length ? true : undefined), { what: 'the refused subscription in status', timeoutMs: 20_000 });
    expect((await hub.status()).ble).toBe('unavailable');
    const pair = await hub.cli(['pair', 'DEAF-2', '--timeout', '60']);
    expect(pair.code).toBe(1);
    expect(pair.stderr).toContain('cannot hear DEAF-2: BLE is unavailable (unsupported: this kernel has no Bluetooth (AF_BLUETOOTH refused)), and the MQTT broker refuses');
  });
});

describe('a broker whose ACL refuses the retained state (acl_file, MQTT 5)', () => {
  it('makes the hub degraded, naming the topic and the reason, and counts the refusals', async () => {
    hub = await hubOn({ acl: ['user admin', 'topic readwrite #', 'user hub', 'topic read +/announce', 'topic write +/status', 'topic write +/health'] });
    const entitlement = `${hub.prefix}/entitlement`;
    const report = await waitFor(async () => {
      const current = await hub!.status();
      return current.mqttRefusals?.publishes.some((entry) => entry.topic === entitlement) ? current : undefined;
    }, { what: 'the refused publish in status', timeoutMs: 20_000 });
    expect(report.healthy).toBe(false);
    expect(report.mqttRefusals?.publishesRefused).toBeGreaterThanOrEqual(1);
    expect(report.problems).toContain(
      `the MQTT broker refuses the publish to ${entitlement} (not authorized (0x87)): its retained state is missing; the broker's ACL must let user hub publish to ${entitlement}`,
    );
    expect(report.mqttReason).toContain(`publish to ${entitlement} refused: not authorized (0x87)`);

    // `check` cannot publish without side effects; it asks the running daemon what was refused.
    const check = await hub.cli(['check', '--json'], { env: hub.daemonEnv() });
    const mqtt = (JSON.parse(check.stdout) as CheckReport).checks.find((result) => result.name === 'mqtt');
    expect(check.code).toBe(1);
    expect(mqtt?.ok).toBe(false);
    expect(mqtt?.detail).toContain(`the broker refuses the daemon's publish to ${entitlement} (not authorized (0x87))`);
    expect(mqtt?.fix).toBe(`the broker's ACL must let user hub publish to ${entitlement}`);
  });
});

describe('a broker that refuses the login', () => {
  it('`status` says why MQTT is down, not only "disconnected"', async () => {
    const wrong = path.join(dir, 'wrong-password');
    writeFileSync(wrong, 'not-the-password\n', { mode: 0o600 });
    hub = await hubOn({}, { PANIC_PAIR_MQTT_PASSWORD_FILE: wrong });
    const report = await waitFor(async () => {
      const current = await hub!.status();
      return current.mqttReason?.includes('refused the login') ? current : undefined;
    }, { what: 'the reason in status', timeoutMs: 20_000 });
    expect(report.mqtt).not.toBe('connected');
    expect(report.mqttReason).toBe('the broker refused the login: Connection refused: Not authorized');
    expect(report.problems).toContain('the MQTT broker is not connected (the broker refused the login: Connection refused: Not authorized)');
    expect(JSON.stringify(report)).not.toContain('not-the-password');
  });
});

describe('the MQTT password file', () => {
  it('readable by others: `run` exits 2 naming PANIC_PAIR_MQTT_PASSWORD_FILE, as for the token file', async () => {
    const loose = path.join(dir, 'loose-password');
    const token = path.join(dir, 'api-token');
    writeFileSync(loose, 'hub-secret\n');
    chmodSync(loose, 0o644);
    writeFileSync(token, 'token-for-the-check\n', { mode: 0o600 });
    const run = await runBinary(['run'], {
      PATH: process.env.PATH,
      PANIC_PAIR_CONFIG: '',
      PANIC_PAIR_API_URL: 'http://127.0.0.1:9',
      PANIC_PAIR_API_TOKEN_FILE: token,
      PANIC_PAIR_CUSTOMER_ID: '42',
      PANIC_PAIR_STATE_DIR: path.join(dir, 'state'),
      PANIC_PAIR_MQTT_URL: 'mqtt://127.0.0.1:9',
      PANIC_PAIR_MQTT_PASSWORD_FILE: loose,
      PANIC_PAIR_BLE: 'off',
    }, { timeoutMs: 30_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`PANIC_PAIR_MQTT_PASSWORD_FILE ${loose} is readable by group or others (mode 0644): chmod 600 ${loose}`);
    expect(run.stdout).toBe('');
  });
});
