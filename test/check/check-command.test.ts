import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { assertBuilt, runBinary } from '../support/binary.js';
import { startBroker, type TestBroker } from '../support/broker.js';

// `panic-pair check`, the real binary, against the simulator and a real broker; no daemon runs.

const TOKEN = 'check-token-41d7e0';
let dir: string;
let simulator: Simulator;
let broker: TestBroker;
let tokenFile: string;
let stateDir: string;

const SEED = {
  customers: [
    { id: 42, subscriptions: [{ id: 1, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] }] },
    { id: 7, subscriptions: [{ id: 2, subscriptionTypeId: 1, status: 'cancelled', dependantCustomerIds: [] }] },
  ],
};

beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-check-'));
  stateDir = join(dir, 'state');
  tokenFile = join(dir, 'api-token');
  await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  await writeFile(join(dir, 'config.json'), '{}\n', { mode: 0o644 });
  simulator = await startSimulator({ token: TOKEN, seed: SEED });
  broker = await startBroker({ users: { hub: 'hub-password' } });
  await writeFile(join(dir, 'mqtt-password'), 'hub-password\n', { mode: 0o600 });
});

afterAll(async () => {
  await simulator?.close();
  await broker?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A hub whose every check can pass; each test spoils one thing. */
function settings(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    PANIC_PAIR_CONFIG: join(dir, 'config.json'),
    PANIC_PAIR_API_URL: simulator.url,
    PANIC_PAIR_API_TOKEN_FILE: tokenFile,
    PANIC_PAIR_CUSTOMER_ID: '42',
    PANIC_PAIR_STATE_DIR: stateDir,
    PANIC_PAIR_MQTT_URL: broker.url,
    PANIC_PAIR_MQTT_USERNAME: 'hub',
    PANIC_PAIR_MQTT_PASSWORD_FILE: join(dir, 'mqtt-password'),
    PANIC_PAIR_BLE: 'off',
    ...overrides,
  };
}

const check = (overrides: Record<string, string | undefined> = {}, args: string[] = []) => runBinary(['check', ...args], settings(overrides));

/** The line of one check, as a pipe gets it. */
function line(stdout: string, label: string): string {
  const found = stdout.split('\n').find((text) => /^(PASS|FAIL|SKIP) /.test(text) && text.slice(5).startsWith(`${label.padEnd(13)}  `));
  if (found === undefined) throw new Error(`no line for ${label} in:\n${stdout}`);
  return found;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('panic-pair check', () => {
  it('passes every enabled check, one line each, and exits 0 — without a daemon, and without touching the state dir', async () => {
    const result = await check();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(line(result.stdout, 'configuration')).toMatch(/^PASS /);
    expect(line(result.stdout, 'API token')).toBe(`PASS API token      token file ${tokenFile}; readable by its owner only`);
    expect(line(result.stdout, 'API')).toBe(`PASS API            ${simulator.url} answered; the token is accepted`);
    expect(line(result.stdout, 'entitlement')).toBe('PASS entitlement    customer 42 holds an active subscription');
    expect(line(result.stdout, 'MQTT')).toMatch(new RegExp(`^PASS MQTT {11}connected to ${broker.url} as hub \\(MQTT (5|3\\.1\\.1)\\); subscribed to `));
    expect(line(result.stdout, 'BLE')).toBe('SKIP BLE            off (PANIC_PAIR_BLE=off, or "ble": "off" in config.json)');
    expect(result.stdout.trim().split('\n').at(-1)).toBe('ready: every enabled check passed');
    // No store opened, no lock taken: the state dir was not even created.
    await expect(readdir(stateDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('--json: { ok, checks: [{ name, ok, detail, fix? }] } and nothing else on stdout', async () => {
    const result = await check({ PANIC_PAIR_MQTT_URL: undefined }, ['--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as CheckReport;
    expect(report.ok).toBe(true);
    expect(report.checks.map((entry) => [entry.name, entry.ok, entry.skipped ?? false])).toEqual([
      ['configuration', true, false],
      ['token', true, false],
      ['api', true, false],
      ['entitlement', true, false],
      ['mqtt', true, true],
      ['ble', true, true],
      ['page', true, true],
    ]);
  });

  it('a refused token: exit 1, and what to do', async () => {
    const wrong = join(dir, 'wrong-token');
    await writeFile(wrong, 'not-the-token\n', { mode: 0o600 });
    const result = await check({ PANIC_PAIR_API_TOKEN_FILE: wrong });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'API')).toBe(
      `FAIL API            the API at ${simulator.url} refused the token (401) — fix: put the hub's current panic-api token in the token file, then run the check again`,
    );
    expect(line(result.stdout, 'entitlement')).toBe('SKIP entitlement    not checked: the api check failed');
    expect(result.stdout).not.toContain('not-the-token');
  });

  it('a token file others can read: exit 1, chmod 600', async () => {
    const loose = join(dir, 'loose-token');
    await writeFile(loose, `${TOKEN}\n`);
    await chmod(loose, 0o644);
    const result = await check({ PANIC_PAIR_API_TOKEN_FILE: loose });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'API token')).toBe(`FAIL API token      token file ${loose} is readable by group or others (mode 0644) — fix: chmod 600 ${loose}`);
    expect(line(result.stdout, 'API')).toMatch(/^SKIP API +not checked: the token check failed$/);
  });

  it('an MQTT password file others can read reads as a loose token file does: the fix once, and the restart', async () => {
    const loose = join(dir, 'loose-mqtt-password');
    await writeFile(loose, 'hub-password\n');
    await chmod(loose, 0o644);
    const result = await check({ PANIC_PAIR_MQTT_PASSWORD_FILE: loose });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'MQTT')).toBe(`FAIL MQTT           PANIC_PAIR_MQTT_PASSWORD_FILE ${loose} is readable by group or others (mode 0644) — fix: chmod 600 ${loose}`);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('once fixed: sudo systemctl restart panic-pair');
    expect(result.stdout).not.toContain('hub-password');
  });

  it('a customer without an active subscription: exit 1, named', async () => {
    const result = await check({ PANIC_PAIR_CUSTOMER_ID: '7' });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'API')).toMatch(/^PASS /);
    expect(line(result.stdout, 'entitlement')).toBe(
      'FAIL entitlement    customer 7 holds no active subscription (1 subscription(s), status cancelled); no button will be linked' +
        " — fix: activate the customer's subscription in panic-api, or correct PANIC_PAIR_CUSTOMER_ID (customerId in the config file)",
    );
  });

  it('a customer the API does not know: exit 1', async () => {
    const result = await check({ PANIC_PAIR_CUSTOMER_ID: '999' });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'entitlement')).toMatch(/^FAIL entitlement +customer 999 is not known to the API \(404\) — fix: correct PANIC_PAIR_CUSTOMER_ID/);
  });

  it('an unreachable broker: exit 1, and how to start it', async () => {
    const url = `mqtt://127.0.0.1:${await closedPort()}`;
    const result = await check({ PANIC_PAIR_MQTT_URL: url });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'MQTT')).toBe(
      `FAIL MQTT           no MQTT broker answers at ${url} (connection refused) — fix: start the broker (e.g. systemctl start mosquitto) or correct PANIC_PAIR_MQTT_URL`,
    );
    expect(result.stdout.trim().split('\n').at(-1)).toBe('not ready: 1 check failed');
  });

  it('a broker that refuses the login: exit 1, check the credentials', async () => {
    const wrong = join(dir, 'wrong-mqtt-password');
    await writeFile(wrong, 'nope\n', { mode: 0o600 });
    const result = await check({ PANIC_PAIR_MQTT_PASSWORD_FILE: wrong });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'MQTT')).toMatch(/^FAIL MQTT +the broker at .* refused the login .* — fix: check PANIC_PAIR_MQTT_USERNAME and the password/);
    expect(result.stdout).not.toContain('nope');
  });

  it('an unreachable API: exit 1, check the address and the network', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = await check({ PANIC_PAIR_API_URL: url, PANIC_PAIR_API_TIMEOUT: '2' });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'API')).toMatch(/^FAIL API +cannot reach the API at http:\/\/127\.0\.0\.1:\d+: .* — fix: check PANIC_PAIR_API_URL/);
  });

  it('a configuration that cannot be loaded is one failed check: exit 1, the setting named', async () => {
    const result = await check({ PANIC_PAIR_CUSTOMER_ID: 'forty-two' });
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^FAIL configuration +.*PANIC_PAIR_CUSTOMER_ID.* — fix: correct that setting in /);
    expect(lines[2]).toBe('once fixed: sudo systemctl restart panic-pair');
  });

  it('required settings missing: the configuration fails, and the API is not asked', async () => {
    const result = await check({ PANIC_PAIR_API_URL: undefined, PANIC_PAIR_CUSTOMER_ID: undefined });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'configuration')).toMatch(/^FAIL configuration +PANIC_PAIR_API_URL \(apiUrl\) and PANIC_PAIR_CUSTOMER_ID \(customerId\) not set/);
    expect(line(result.stdout, 'API')).toMatch(/^SKIP API +not checked: the configuration check failed$/);
  });
});

describe('panic-pair check: the installer\'s page', () => {
  const CODE = 'label-code-5h2k9q';
  const page = (codeFile: string | undefined) => check({ PANIC_PAIR_WEB_LISTEN: '127.0.0.1:8080', PANIC_PAIR_WEB_CODE_FILE: codeFile });

  it('off when PANIC_PAIR_WEB_LISTEN is unset: skipped, not a failure', async () => {
    const result = await check();
    expect(result.code).toBe(0);
    expect(line(result.stdout, 'page')).toBe('SKIP page           off: webListen (PANIC_PAIR_WEB_LISTEN), e.g. 0.0.0.0:8080, and an installer code turn it on');
  });

  it('on, with a code file readable by its owner only: passes naming the address, never the code', async () => {
    const codeFile = join(dir, 'installer-code');
    await writeFile(codeFile, `${CODE}\n`, { mode: 0o600 });
    const result = await page(codeFile);
    expect(result.code).toBe(0);
    expect(line(result.stdout, 'page')).toBe(`PASS page           HTTP on 127.0.0.1:8080: http://127.0.0.1:8080, this hub only: no phone can open it (webListen 0.0.0.0:8080 serves the network); installer code in ${codeFile}, readable by its owner only`);
    const json = await runBinary(['check', '--json'], settings({ PANIC_PAIR_WEB_LISTEN: '127.0.0.1:8080', PANIC_PAIR_WEB_CODE_FILE: codeFile }));
    const report = JSON.parse(json.stdout) as CheckReport;
    expect(report.checks.find((entry) => entry.name === 'page')).toEqual({ name: 'page', ok: true, detail: expect.stringContaining('HTTP on 127.0.0.1:8080') });
    expect(result.stdout + json.stdout).not.toContain(CODE);
  });

  it('on, with a code file group and others can read: exit 1, the chmod that fixes it, and the restart', async () => {
    const codeFile = join(dir, 'loose-installer-code');
    await writeFile(codeFile, `${CODE}\n`);
    await chmod(codeFile, 0o644);
    const result = await page(codeFile);
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'page')).toBe(
      `FAIL page           PANIC_PAIR_WEB_CODE_FILE ${codeFile} is readable by group or others (mode 0644) — fix: chmod 600 ${codeFile}`,
    );
    expect(result.stdout).toContain('once fixed: sudo systemctl restart panic-pair');
    expect(result.stdout).not.toContain(CODE);
  });

  it('on, with no code file: exit 1, and how to install one', async () => {
    const codeFile = join(dir, 'no-installer-code');
    const result = await page(codeFile);
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'page')).toBe(
      `FAIL page           PANIC_PAIR_WEB_CODE_FILE ${codeFile} does not exist — fix: write the installer code (one line) to ${codeFile} and chmod 600 ${codeFile}, set PANIC_PAIR_WEB_CODE_FILE to the file holding it, or run: sudo systemd/install.sh --web-code-file FILE`,
    );
  });
});
