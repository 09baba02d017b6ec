import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceRecord } from '../../src/store/record.js';
import { runBinary, type CliResult } from '../support/binary.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { publishOnce } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';
import { startApiRecorder, type ApiRecorder } from './support/api-recorder.js';
import { FUZZ_PROFILES_JSON } from './support/fuzz-profiles.js';

// Who may decide what: the customer is the configured one whatever a message says; nothing links
// without a request, a window or automatic pairing; a window keeps to the RSSI floor; only users
// with access to the control socket reach the daemon; loose config and token files are refused.

const ACTIVE = (id: number) => ({ id, subscriptions: [{ id: id * 10, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] }] });
const GATEWAYS = 'pp-sec-gw';
const ZIGBEE = 'pp-sec-z2m';
const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-security-'));
let hub: DaemonHarness;
let recorder: ApiRecorder;

beforeAll(async () => {
  const config = path.join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ profiles: FUZZ_PROFILES_JSON }), { mode: 0o644 });
  recorder = await startApiRecorder();
  hub = await startHarness({
    logLevel: 'info',
    // Customer 999 exists and is entitled too: a message naming it must still not reach it.
    seed: { customers: [ACTIVE(42), ACTIVE(999)] },
    env: {
      PANIC_PAIR_API_URL: recorder.url,
      PANIC_PAIR_CONFIG: config,
      PANIC_PAIR_MIN_RSSI: '-70',
      PANIC_PAIR_MQTT_BLE_GATEWAYS: `${GATEWAYS}/+/BTtoMQTT/+`,
      PANIC_PAIR_ZIGBEE2MQTT_PREFIX: ZIGBEE,
    },
  });
  recorder.setTarget(hub.simulator.url);
});

afterAll(async () => {
  await hub?.close();
  await recorder?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A BLE gateway's report of a panic button heard at `rssi`. */
function gatewayReport(deviceId: string, rssi: number): Promise<void> {
  const mac = Buffer.from(deviceId.padEnd(6, '0').slice(0, 6)).toString('hex').toUpperCase();
  return publishOnce(hub.broker.url, `${GATEWAYS}/hall/BTtoMQTT/${mac}`, [JSON.stringify({ id: mac.match(/../g)!.join(':'), name: `PANIC-${deviceId}`, rssi })]);
}

async function heard(count: number, send: () => Promise<void>): Promise<void> {
  const before = (await hub.status()).counters.announcements;
  await send();
  await waitFor(async () => (await hub.status()).counters.announcements >= before + count, { what: `the daemon to hear ${count} message(s)` });
}

describe('the customer', () => {
  it('is the configured one, whatever an announcement says', async () => {
    await heard(1, () => hub.announce('SEC-CUST', { customerId: 999, customer: 999 }));
    const pair = await hub.cli(['pair', 'SEC-CUST']);
    expect(pair.code, pair.stderr).toBe(0);
    const bodies = recorder.linkBodies().filter((body) => body.deviceId === 'SEC-CUST');
    expect(bodies).toEqual([{ customerId: 42, deviceId: 'SEC-CUST' }]);
    const asked = recorder.exchanges.filter((exchange) => exchange.method === 'GET').map((exchange) => exchange.path);
    expect(asked.length).toBeGreaterThan(0);
    for (const route of asked) expect(route).toBe('/panic-api/v2/customers/42/subscriptions');
    expect((await hub.devices()).find((device) => device.deviceId === 'SEC-CUST')?.customerId).toBe(42);
  });
});

describe('what links a button', () => {
  it('nothing, without a request, a window or automatic pairing, from any source', async () => {
    const links = hub.simulator.stats().requests.link;
    const zigbeeJoin = { type: 'device_interview', data: { ieee_address: '0x00124b00088ccd58', status: 'successful', definition: { model: 'SOS-FUZZ', vendor: 'FuzzCo' } } };
    await heard(3, async () => {
      await hub.announce('SEC-STRAY-A', { rssi: -30 });
      await gatewayReport('STRAYB', -30);
      await publishOnce(hub.broker.url, `${ZIGBEE}/bridge/event`, [JSON.stringify(zigbeeJoin)]);
    });
    const scan = JSON.parse((await hub.cli(['scan', '--seconds', '1', '--json'])).stdout) as Array<{ deviceId: string }>;
    expect(scan.map((entry) => entry.deviceId)).toEqual(expect.arrayContaining(['SEC-STRAY-A', 'STRAYB', '0x00124b00088ccd58']));
    expect(hub.simulator.stats().requests.link).toBe(links);
    expect((await hub.devices()).map((device) => device.deviceId)).not.toEqual(expect.arrayContaining(['SEC-STRAY-A']));
  });

  it('a window links radio sightings at or above the RSSI floor only; `pair <id>` takes the weak one', async () => {
    const window = hub.cli(['pair', '--window', '3', '--json']);
    await waitFor(async () => (await hub.status()).windowOpenUntil !== undefined, { what: 'the window to open' });
    await heard(3, async () => {
      await gatewayReport('STRONG', -50);
      await gatewayReport('FLOOR1', -70);
      await gatewayReport('WEAK01', -90);
    });
    const result = await window;
    expect(result.code, result.stderr).toBe(0);
    const linked = (JSON.parse(result.stdout) as { linked: DeviceRecord[] }).linked.map((record) => record.deviceId).sort();
    expect(linked).toEqual(['FLOOR1', 'STRONG']);
    expect(postsFor(hub, 'WEAK01')).toBe(0);

    const pair = await hub.cli(['pair', 'WEAK01']);
    expect(pair.code, pair.stderr).toBe(0);
    expect(postsFor(hub, 'WEAK01')).toBe(1);
  });
});

/** The CLI as another user, bounded in time. */
function cliAs(uid: number, gid: number, args: string[]): Promise<CliResult> {
  const env = { PATH: process.env.PATH, PANIC_PAIR_CONFIG: '', PANIC_PAIR_RUNTIME_DIR: hub.runtimeDir, HOME: '/' };
  return runBinary(args, env, { uid, gid, timeoutMs: 20_000 });
}

describe('the control socket', () => {
  const NOBODY = 65534;

  it('refuses a user without access, saying why and what to do; a member of its group gets in', async (context) => {
    if (process.getuid?.() !== 0) return context.skip('needs root, to run the CLI as another user');
    const socket = path.join(hub.runtimeDir, 'panic-pair.sock');
    expect(statSync(socket).mode & 0o777).toBe(0o660);
    // Refused by the runtime dir, then by the socket's own mode with every dir on the way open.
    chmodSync(path.dirname(hub.runtimeDir), 0o755);
    for (const dirMode of [0o700, 0o755]) {
      chmodSync(hub.runtimeDir, dirMode);
      const refused = await cliAs(NOBODY, NOBODY, ['status']);
      expect(refused.code, refused.stdout).toBe(7);
      expect(refused.stderr).toContain(`permission denied on ${socket}`);
      expect(refused.stderr).toContain('panic-pair group');
    }
    // The socket's group (root's, here) is what an installer joins.
    const member = await cliAs(NOBODY, 0, ['status', '--json']);
    expect(member.stderr).toBe('');
    expect((JSON.parse(member.stdout) as { customerId: number }).customerId).toBe(42);
    chmodSync(hub.runtimeDir, 0o700);
    chmodSync(path.dirname(hub.runtimeDir), 0o700);
  });
});

/** `panic-pair run` expected to stop at start; killed if it does not. */
function runOnce(env: Record<string, string>): Promise<CliResult> {
  return runBinary(['run'], { PATH: process.env.PATH, ...env }, { timeoutMs: 15_000 });
}

describe('configuration files others could change or read', () => {
  const base = (): Record<string, string> => ({
    PANIC_PAIR_CONFIG: '',
    PANIC_PAIR_API_URL: 'http://127.0.0.1:9',
    PANIC_PAIR_CUSTOMER_ID: '42',
    PANIC_PAIR_STATE_DIR: path.join(dir, 'state'),
    PANIC_PAIR_RUNTIME_DIR: path.join(dir, 'run'),
    PANIC_PAIR_BLE: 'off',
  });

  for (const mode of [0o602, 0o620, 0o640, 0o604]) {
    it(`a token file of mode ${mode.toString(8)} stops start-up with exit 2, naming the file and the fix`, async () => {
      const file = path.join(dir, `token-${mode.toString(8)}`);
      writeFileSync(file, 'a-token-for-the-test\n');
      chmodSync(file, mode);
      const result = await runOnce({ ...base(), PANIC_PAIR_API_TOKEN_FILE: file });
      expect(result.code, result.stdout + result.stderr).toBe(2);
      expect(result.stderr).toContain(`PANIC_PAIR_API_TOKEN_FILE ${file}`);
      expect(result.stderr).toContain(`chmod 600 ${file}`);
      expect(result.stderr + result.stdout).not.toContain('a-token-for-the-test');
    });
  }

  for (const mode of [0o666, 0o620, 0o602]) {
    it(`a config file of mode ${mode.toString(8)} stops start-up with exit 2, naming the file and the fix`, async () => {
      const file = path.join(dir, `config-${mode.toString(8)}.json`);
      writeFileSync(file, JSON.stringify({ customerId: 42 }));
      chmodSync(file, mode);
      const result = await runOnce({ ...base(), PANIC_PAIR_API_TOKEN: 'a-token-for-the-test', PANIC_PAIR_CONFIG: file });
      expect(result.code, result.stdout + result.stderr).toBe(2);
      expect(result.stderr).toContain(`PANIC_PAIR_CONFIG ${file}`);
      expect(result.stderr).toContain('writable by group or others');
      expect(result.stderr).toContain(`chmod 644 ${file}`);
    });
  }
});
