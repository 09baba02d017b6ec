import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_RELOAD_NOTICE } from '../../src/cli/commands/run.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { assertBuilt, ROOT } from '../support/binary.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { pairInside, unitProperties } from '../support/container-service.js';
import { bootOrReason, TEST_CACHE_DIR, type Container } from '../support/container.js';
import { LIVE_SYSTEMD_RECIPE } from '../support/test-roots.js';
import { freePort } from '../support/loopback.mjs';
import { observe, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';
import { postCode, signIn, type PageSettings } from '../support/web-page.js';

// The installed unit under a real systemd: Debian 12 (bookworm, what Raspberry Pi OS is built on)
// booted in a container by systemd-nspawn, the package installed by systemd/install.sh, then what
// a hub goes through: start (Type=notify), the installer's page with its code handed over as a
// credential, a pairing, a token rotation, the watchdog, a crash, a stop. The root is minbase plus systemd and dbus, without procps, so there is no /bin/kill:
// `systemctl reload` must work without it. Node is the host's own binary (the one running these
// tests), bound in read-only at /usr/local/bin/node: bookworm's nodejs is 18, older than the
// package supports, and the host's is the version the rest of the suite was tested with.
// The container shares the host's network: the API simulator and mosquitto listen on 127.0.0.1
// of the host. Skips, saying why, where it cannot run (not root, no systemd-nspawn or mmdebstrap,
// no Debian mirror for the first build of the cached root, a kernel where nspawn cannot boot).

const RECIPE = LIVE_SYSTEMD_RECIPE;
const TOKEN = 'live-token-1d7a90c3e5';
const CUSTOMER_ID = 42;
const INSTALLER_CODE = 'live-hub-label-5821';
const UNIT = 'panic-pair.service';
const SOURCE = '/root/panic-pair'; // the copy of the checkout install.sh runs from
const STEP_MS = 60_000;

const booted = await bootOrReason(RECIPE, { hostNode: true });
const skipReason = typeof booted === 'string' ? booted : undefined;
if (skipReason !== undefined) process.stderr.write(`skipping the live-systemd suite: ${skipReason}\n`);

describe.skipIf(skipReason !== undefined)(`panic-pair.service under systemd in a container${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const box = booted as Container;
  let simulator: Simulator;
  let broker: TestBroker;
  let watcher: MqttObserver;
  let page: PageSettings;

  const inside = (file: string): string => path.join(box.root, file);
  const systemctl = (...args: string[]) => box.check(['systemctl', '--no-pager', ...args]);
  const show = (...properties: string[]) => unitProperties(box, UNIT, ...properties);
  const journal = async (): Promise<string[]> => (await box.check(['journalctl', '--no-pager', '-o', 'cat', '-u', UNIT])).split('\n');
  const logged = async (msg: string): Promise<number> =>
    (await journal()).filter((line) => line.startsWith('{') && (JSON.parse(line) as { msg?: string }).msg === msg).length;

  const pair = (deviceId: string) => pairInside(box, broker.url, deviceId);
  /** Waits for systemd to have started the daemon again, under a new PID. */
  const restartedFrom = (pid: string, restarts: number) =>
    waitFor(
      async () => {
        const now = await show('MainPID', 'ActiveState', 'NRestarts');
        return now.ActiveState === 'active' && now.MainPID !== pid && now.MainPID !== '0' && Number(now.NRestarts) > restarts ? now : undefined;
      },
      { timeoutMs: STEP_MS, intervalMs: 200, what: 'systemd to start the daemon again' },
    );
  const shell = (script: string, ...args: string[]) => box.check(['sh', '-c', script, 'sh', ...args]);
  /**
   * Signals the daemon's main process. nsenter leaves the shell in the test runner's process group:
   * `kill 0` (a unit with no main process says MainPID=0) would kill the runner itself, so no pid
   * but a real one is ever signalled.
   */
  const signalDaemon = async (name: 'STOP' | 'KILL', pid: string | undefined): Promise<void> => {
    expect(Number(pid), `MainPID of ${UNIT}`).toBeGreaterThan(1);
    await shell(`kill -${name} "$1"`, pid ?? '');
  };

  beforeAll(async () => {
    assertBuilt();
    simulator = await startSimulator({ token: TOKEN });
    broker = await startBroker();
    watcher = await observe(broker.url, 'panic-pair/status');
    await placeCheckout(inside(SOURCE));
    await writeFile(inside('/root/api-token'), `${TOKEN}\n`, { mode: 0o600 });
    await writeFile(inside('/root/installer-code'), `${INSTALLER_CODE}\n`, { mode: 0o600 });
    // The container shares the host's network: the page listens on the host's loopback.
    const port = await freePort();
    page = { code: INSTALLER_CODE, port, origin: `http://127.0.0.1:${port}`, env: {} };
  }, 5 * STEP_MS);

  afterAll(async () => {
    await box?.stop();
    await watcher?.close();
    await broker?.stop();
    await simulator?.close();
  }, 2 * STEP_MS);

  it('installs with systemd/install.sh, and the root has no /bin/kill', async () => {
    expect(existsSync(inside('/bin/kill')) || existsSync(inside('/usr/bin/kill'))).toBe(false);
    const args = ['--no-npm', '--api-url', simulator.url, '--customer-id', String(CUSTOMER_ID), '--token-file', '/root/api-token'];
    args.push('--web-code-file', '/root/installer-code', '--web-listen', `127.0.0.1:${page.port}`);
    const out = await box.check(['bash', `${SOURCE}/systemd/install.sh`, ...args]);
    expect(out).toContain(`unit /etc/systemd/system/${UNIT} installed and enabled`);
    // install.sh runs `npm ci --omit=dev` on a hub; without a registry here the same modules,
    // made on the host, are put in place.
    await box.check(['cp', '-a', `${SOURCE}/node_modules`, '/opt/panic-pair/node_modules']);
    const config = JSON.parse(readFileSync(inside('/etc/panic-pair/config.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(inside('/etc/panic-pair/config.json'), JSON.stringify({ ...config, mqttUrl: broker.url, ble: 'off' }));
    expect((await systemctl('is-enabled', UNIT)).trim()).toBe('enabled');
    expect((await shell('stat -c "%U:%G %a" /etc/panic-pair/api-token /etc/panic-pair/installer-code')).trim().split('\n')).toEqual([
      'root:root 600',
      'root:root 600',
    ]);
  });

  it('starts as Type=notify: active once the daemon says READY, and online over MQTT', async () => {
    await systemctl('start', UNIT); // returns once READY=1 arrived
    expect(await show('Type', 'ActiveState', 'SubState', 'NotifyAccess')).toEqual({ Type: 'notify', ActiveState: 'active', SubState: 'running', NotifyAccess: 'all' });
    await waitFor(() => watcher.payloads('panic-pair/status').at(-1) === 'online', { what: 'panic-pair/status online', timeoutMs: STEP_MS });
    // The status line sent with READY=1; a link refreshes it, and so does each watchdog ping.
    expect((await show('StatusText')).StatusText).toMatch(/^0 linked, mqtt \w+, ble off/);
  });

  it("serves the installer's page with the code systemd hands over (LoadCredential, %d), which stays root's", async () => {
    // The daemon (user panic-pair) cannot read /etc/panic-pair/installer-code; it reads the copy
    // systemd made in $CREDENTIALS_DIRECTORY, which the drop-in names with %d.
    expect(readFileSync(inside(`/etc/systemd/system/${UNIT}.d/installer-code.conf`), 'utf8')).toContain('PANIC_PAIR_WEB_CODE_FILE=%d/installer-code');
    expect(await signIn(page)).toMatch(/=/);
    expect((await postCode(page, 'not-the-code')).status).toBe(401);
    // check, run by root from a shell (no credentials directory), finds the code as the unit does.
    const check = await box.run(['panic-pair', 'check']);
    expect(check.stdout).toMatch(new RegExp(`^PASS page .*127\\.0\\.0\\.1:${page.port}`, 'm'));
    // And it finds the unit's daemon in /run/panic-pair, to ask which publishes the broker refused.
    expect(check.stdout).toMatch(/^PASS MQTT .*; the running daemon's publishes are accepted$/m);
  });

  it('pairs a button announced over MQTT through the control socket, and keeps the store private', async () => {
    const result = await pair('LIVE-1');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(readFileSync(inside('/var/lib/panic-pair/pairings.json'), 'utf8')).toContain('LIVE-1');
    // `systemctl status` follows the link itself, not the next watchdog ping (15 s away).
    await waitFor(async () => (await show('StatusText')).StatusText?.startsWith('1 linked'), { what: 'the status line to say 1 linked' });
    expect((await shell('stat -c "%U:%G %a" /var/lib/panic-pair /var/lib/panic-pair/pairings.json')).trim().split('\n')).toEqual([
      'panic-pair:panic-pair 750',
      'panic-pair:panic-pair 600',
    ]);
    expect((await shell('stat -c "%U:%G %a" /run/panic-pair/panic-pair.sock')).trim()).toBe('panic-pair:panic-pair 660');
  });

  it('rotates the credential as docs/operator/rotation.md says: reload (no /bin/kill) names the restart it needs; restart takes it', async () => {
    const { MainPID } = await show('MainPID');
    const rotated = 'live-token-2b64f0e8a7';
    simulator.setToken(rotated);
    await writeFile(inside('/etc/panic-pair/api-token'), `${rotated}\n`, { mode: 0o600 });
    await systemctl('reload', UNIT);
    await waitFor(async () => (await logged(CREDENTIAL_RELOAD_NOTICE)) === 1, { what: 'the credential notice in the journal', timeoutMs: STEP_MS });
    expect((await show('MainPID')).MainPID).toBe(MainPID);

    await systemctl('restart', UNIT);
    const result = await pair('LIVE-2');
    expect(result.code, result.stderr).toBe(0);
  });

  it('rotates a token file with a reload, as docs/operator/rotation.md shows, without a restart', async () => {
    await box.check(['chown', 'panic-pair:panic-pair', '/etc/panic-pair/api-token']);
    const config = JSON.parse(readFileSync(inside('/etc/panic-pair/config.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(inside('/etc/panic-pair/config.json'), JSON.stringify({ ...config, apiTokenFile: '/etc/panic-pair/api-token' }));
    await systemctl('restart', UNIT);
    const { MainPID } = await show('MainPID');
    const before = await logged('configuration reloaded: the next request uses the token read now');

    const rotated = 'live-token-3c9e1a5f27';
    simulator.setToken(rotated);
    await writeFile(inside('/etc/panic-pair/api-token.new'), `${rotated}\n`, { mode: 0o600 });
    await box.check(['chown', 'panic-pair:panic-pair', '/etc/panic-pair/api-token.new']);
    await rename(inside('/etc/panic-pair/api-token.new'), inside('/etc/panic-pair/api-token'));
    await systemctl('reload', UNIT);
    await waitFor(async () => (await logged('configuration reloaded: the next request uses the token read now')) > before, {
      what: 'the reload in the journal',
      timeoutMs: STEP_MS,
    });
    const result = await pair('LIVE-3');
    expect(result.code, result.stderr).toBe(0);
    expect((await show('MainPID')).MainPID).toBe(MainPID);
  });

  it('is restarted by the watchdog when its event loop stops (SIGSTOP), with WatchdogSec lowered', async () => {
    // A shorter watchdog and pause keep the test short; the test also starts the unit more often
    // than the start limit allows a hub.
    await mkdir(inside(`/etc/systemd/system/${UNIT}.d`), { recursive: true });
    await writeFile(inside(`/etc/systemd/system/${UNIT}.d/test.conf`), '[Unit]\nStartLimitIntervalSec=0\n[Service]\nWatchdogSec=4s\nRestartSec=1s\n');
    await systemctl('daemon-reload');
    await systemctl('restart', UNIT);
    const { MainPID, NRestarts } = await show('MainPID', 'NRestarts');
    await signalDaemon('STOP', MainPID);
    await restartedFrom(MainPID ?? '', Number(NRestarts));
    expect((await journal()).some((line) => line.includes('Watchdog timeout'))).toBe(true);
    const result = await pair('LIVE-4');
    expect(result.code, result.stderr).toBe(0);
  });

  it('is restarted after kill -9', async () => {
    const { MainPID, NRestarts } = await show('MainPID', 'NRestarts');
    await signalDaemon('KILL', MainPID);
    await restartedFrom(MainPID ?? '', Number(NRestarts));
    const devices = JSON.parse(await box.check(['panic-pair', 'devices', '--json'])) as Array<{ deviceId: string; state: string }>;
    expect(devices.map((device) => `${device.deviceId} ${device.state}`).sort()).toEqual(['LIVE-1 linked', 'LIVE-2 linked', 'LIVE-3 linked', 'LIVE-4 linked']);
    // Through every restart, each button was linked once.
    expect(simulator.stats().postsByDevice).toEqual({ 'LIVE-1': 1, 'LIVE-2': 1, 'LIVE-3': 1, 'LIVE-4': 1 });
  });

  it('stops cleanly: exit 0, and <prefix>/status retained offline', async () => {
    await waitFor(() => watcher.payloads('panic-pair/status').at(-1) === 'online', { what: 'online again', timeoutMs: STEP_MS });
    await systemctl('stop', UNIT);
    expect(await show('ActiveState', 'Result', 'ExecMainStatus')).toEqual({ ActiveState: 'inactive', Result: 'success', ExecMainStatus: '0' });
    const late = await observe(broker.url, 'panic-pair/status');
    try {
      const retained = await waitFor(() => late.messages.find((message) => message.retain), { what: 'the retained status', timeoutMs: STEP_MS });
      expect(retained.payload).toBe('offline');
    } finally {
      await late.close();
    }
  });
});

/**
 * A copy of the built checkout, as install.sh expects to find it, with the production modules
 * (`npm ci --omit=dev`, offline from npm's cache) kept beside the cached roots per lockfile.
 */
async function placeCheckout(target: string): Promise<void> {
  await mkdir(target, { recursive: true });
  for (const entry of ['bin', 'dist', 'docs', 'systemd', 'scripts', 'package.json', 'package-lock.json', 'README.md']) {
    await cp(path.join(ROOT, entry), path.join(target, entry), { recursive: true });
  }
  const lock = createHash('sha256').update(readFileSync(path.join(ROOT, 'package-lock.json'))).digest('hex').slice(0, 16);
  const modules = path.join(TEST_CACHE_DIR, `modules-${lock}`);
  if (!existsSync(modules)) {
    const building = `${modules}.building-${process.pid}`;
    await rm(building, { recursive: true, force: true });
    await mkdir(building, { recursive: true });
    await cp(path.join(ROOT, 'package.json'), path.join(building, 'package.json'));
    await cp(path.join(ROOT, 'package-lock.json'), path.join(building, 'package-lock.json'));
    execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], { cwd: building, stdio: 'ignore' });
    await rename(building, modules);
  }
  await cp(path.join(modules, 'node_modules'), path.join(target, 'node_modules'), { recursive: true, verbatimSymlinks: true });
}
