import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { ROOT } from '../support/binary.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { checkoutPackage } from '../support/checkout-package.js';
import { PACKAGE_RECIPE, pairInside, unitProperties } from '../support/container-service.js';
import { bootOrReason, type Container } from '../support/container.js';
import { findExecutable } from '../support/installed.js';
import { freePort } from '../support/loopback.mjs';
import { waitFor } from '../support/wait.js';
import { postCode, signIn } from '../support/web-page.js';

// The Debian package as a hub gets it: `npm run deb -- --arch amd64` built twice (the second a
// higher version), installed with apt in Debian 13 (trixie, its own nodejs 20.19) booted under
// systemd by systemd-nspawn, with no compiler, no npm and no network beyond the host's loopback
// (the API simulator and mosquitto). Install, configure as docs/operator/install.md says, READY, a
// pairing, the installer's page turned on, an upgrade with a link in flight, remove, purge. Skips,
// saying why, where containers cannot run.

const TOKEN = 'deb-token-5e2b7c91d4';
const INSTALLER_CODE = 'deb-hub-label-7319';
const CUSTOMER_ID = 42;
const UNIT = 'panic-pair.service';
const STEP_MS = 60_000;
const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const UPGRADE = `${version}+rebuild1`;

// The HCI module is compiled with this Node's Node-API headers (NodeSource's nodejs has them).
const headers = path.join(path.dirname(process.execPath), '..', 'include', 'node', 'node_version.h');
const booted = existsSync(headers) ? await bootOrReason(PACKAGE_RECIPE) : `no Node headers at ${headers} to build the package with`;
const skipReason = typeof booted === 'string' ? booted : undefined;
if (skipReason !== undefined) process.stderr.write(`skipping the Debian package suite: ${skipReason}\n`);

describe.skipIf(skipReason !== undefined)(`the Debian package in a systemd container${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const box = booted as Container;
  const out = mkdtempSync(path.join(tmpdir(), 'panic-pair-deb-'));
  let simulator: Simulator;
  let broker: TestBroker;

  const inside = (file: string): string => path.join(box.root, file);
  const shell = (script: string) => box.run(['sh', '-c', script]);
  const show = (...properties: string[]) => unitProperties(box, UNIT, ...properties);
  const apt = (...args: string[]) => box.check(['apt-get', '-y', '-q', '--no-install-recommends', ...args], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
  const store = () => readFileSync(inside('/var/lib/panic-pair/pairings.json'), 'utf8');
  const devices = async () => JSON.parse(await box.check(['panic-pair', 'devices', '--json'])) as Array<{ deviceId: string; state: string }>;
  const pair = (deviceId: string) => pairInside(box, broker.url, deviceId);

  beforeAll(async () => {
    simulator = await startSimulator({ token: TOKEN });
    broker = await startBroker();
    await copyFile(await checkoutPackage('amd64'), inside(`/root/panic-pair_${version}_amd64.deb`));
    await copyFile(await checkoutPackage('amd64', UPGRADE), inside(`/root/panic-pair_${UPGRADE}_amd64.deb`));
  }, 5 * STEP_MS);

  afterAll(async () => {
    await box?.stop();
    await broker?.stop();
    await simulator?.close();
    rmSync(out, { recursive: true, force: true });
  }, 2 * STEP_MS);

  it.skipIf(findExecutable('lintian') === undefined)('lintian reports no errors and no warnings about the package', async () => {
    const deb = await checkoutPackage('amd64');
    const result = await promisify(execFile)('lintian', [deb]).catch((error: { stdout: string; stderr: string }) => error);
    const tags = `${result.stdout}`.split('\n').filter((line) => /^[EW]: /.test(line));
    expect(tags.filter((line) => line.startsWith('E: '))).toEqual([]);
    expect(tags).toEqual([]);
  }, STEP_MS);

  it.skipIf(findExecutable('man') === undefined)("`man panic-pair` renders from the package, with every command's --help", async () => {
    const deb = await checkoutPackage('amd64');
    const unpacked = path.join(out, 'man-unpacked');
    await promisify(execFile)('dpkg-deb', ['-x', deb, unpacked]);
    const { stdout, stderr } = await promisify(execFile)('man', ['-l', path.join(unpacked, 'usr/share/man/man1/panic-pair.1.gz')], { env: { ...process.env, MANWIDTH: '100', MAN_KEEP_FORMATTING: '' } });
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^PANIC-PAIR\(1\) /);
    for (const heading of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'COMMANDS', 'EXIT STATUS', 'FILES', 'SEE ALSO']) expect(stdout).toMatch(new RegExp(`^${heading}$`, 'm'));
    // Each command's own help, as `--help` prints it.
    for (const command of ['run', 'pair', 'status', 'check', 'fleet', 'provision']) {
      const { stdout: help } = await promisify(execFile)(process.execPath, [path.join(unpacked, 'usr/lib/panic-pair/bin/panic-pair.js'), command, '--help']);
      expect(stdout).toContain(help.split('\n')[0]);
    }
  }, STEP_MS);

  it('installs with apt on a system with no compiler and no npm, and waits for its settings', async () => {
    expect((await shell('command -v cc gcc npm node-gyp')).stdout).toBe('');
    await box.check(['groupadd', '--system', 'bluetooth']); // as BlueZ makes it on a hub
    const installed = await apt('install', `/root/panic-pair_${version}_amd64.deb`);
    expect(installed).toContain('panic-pair: installed, not configured yet. Run: sudo panic-pair check');
    expect((await box.check(['systemctl', 'is-enabled', UNIT])).trim()).toBe('enabled');
    // The installer's page reads its files beside the bundle's chunks.
    expect(existsSync(inside('/usr/lib/panic-pair/dist/web/assets/index.html'))).toBe(true);
    const verify = await box.run(['systemd-analyze', 'verify', `/usr/lib/systemd/system/${UNIT}`]);
    expect(verify.stderr.trim()).toBe('');
    expect(await show('ActiveState', 'ConditionResult')).toEqual({ ActiveState: 'inactive', ConditionResult: 'no' });
    expect((await shell('id -nG panic-pair; stat -c "%U:%G %a" /var/lib/panic-pair')).stdout.trim().split('\n')).toEqual([
      'panic-pair bluetooth',
      'panic-pair:panic-pair 750',
    ]);
  });

  it('`panic-pair check` right after install names what is missing and the next steps', async () => {
    const check = await box.run(['panic-pair', 'check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^FAIL configuration .* not set; .* fix: set them in \/etc\/panic-pair\/config\.json$/m);
    expect(check.stdout).toMatch(/^FAIL API token .* fix: write the token to \/etc\/panic-pair\/api-token .*chmod 600/m);
    // The HCI module loads (the kernel here has no Bluetooth): not a module problem.
    expect(check.stdout).toMatch(/^SKIP BLE .*this kernel has no Bluetooth/m);
    expect(check.stdout.trim().split('\n').at(-1)).toBe('once fixed: sudo systemctl restart panic-pair');
  });

  it('configured as docs/operator/install.md says, it reaches READY and pairs a button', async () => {
    const config = { apiUrl: simulator.url, customerId: CUSTOMER_ID, mqttUrl: broker.url };
    await writeFile(inside('/etc/panic-pair/config.json'), `${JSON.stringify(config, null, 2)}\n`);
    await writeFile(inside('/etc/panic-pair/api-token'), `${TOKEN}\n`, { mode: 0o600 });
    await box.check(['systemctl', 'restart', UNIT]); // returns once the daemon sent READY=1
    expect(await show('Type', 'ActiveState', 'SubState')).toEqual({ Type: 'notify', ActiveState: 'active', SubState: 'running' });
    const result = await pair('DEB-1');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(store()).toContain('DEB-1');
    expect((await box.check(['panic-pair', 'check'])).trim().split('\n').at(-1)).toBe('ready: every enabled check passed');
  });

  it("turns the installer's page on as docs/operator/install.md says: webListen, the code file, a restart", async () => {
    const port = await freePort();
    const config = JSON.parse(readFileSync(inside('/etc/panic-pair/config.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(inside('/etc/panic-pair/config.json'), `${JSON.stringify({ ...config, webListen: `127.0.0.1:${port}` }, null, 2)}\n`);
    // Before the code file exists, check names it: the unit hands the daemon a placeholder until then.
    const before = await box.run(['panic-pair', 'check']);
    expect(before.code).toBe(1);
    expect(before.stdout).toMatch(
      /^FAIL page .*\/etc\/panic-pair\/installer-code does not exist — fix: write the installer code .* to \/etc\/panic-pair\/installer-code, chmod 600 .*systemctl restart panic-pair$/m,
    );
    await writeFile(inside('/etc/panic-pair/installer-code'), `${INSTALLER_CODE}\n`, { mode: 0o600 });
    await box.check(['systemctl', 'restart', UNIT]);
    const page = { code: INSTALLER_CODE, port, origin: `http://127.0.0.1:${port}`, env: {} };
    expect(await signIn(page)).toMatch(/=/);
    expect((await postCode(page, 'not-the-code')).status).toBe(401);
    const after = await box.run(['panic-pair', 'check']);
    expect(after.stdout.split('\n'), after.stdout).toContain(`PASS page           HTTP on 127.0.0.1:${port}: http://127.0.0.1:${port}, this hub only: no phone can open it (webListen 0.0.0.0:8080 serves the network); installer code in /etc/panic-pair/installer-code, readable by its owner only`);
  });

  it('an upgrade keeps settings and store, restarts the daemon, and loses no link in flight', async () => {
    const settings = readFileSync(inside('/etc/panic-pair/config.json'), 'utf8');
    const { MainPID } = await show('MainPID');
    // The next link is held by the API, so the upgrade's restart comes while the record is `linking`.
    simulator.setFaults({ queue: [{ type: 'delay', ms: 3_000, route: 'link' }] });
    const inFlight = pair('DEB-2');
    await waitFor(() => (existsSync(inside('/var/lib/panic-pair/pairings.json')) && /"DEB-2"[^}]*"linking"/s.test(store()) ? true : undefined), {
      what: 'DEB-2 linking',
      timeoutMs: STEP_MS,
    });
    await apt('install', `/root/panic-pair_${UPGRADE}_amd64.deb`);
    // The version replaced put the watch over the new one in place (docs/operator/updates.md, "When an update fails").
    expect(existsSync(inside('/etc/systemd/system/panic-pair-probation.service'))).toBe(true);
    expect(existsSync(inside('/var/lib/panic-pair-update/previous.deb'))).toBe(true);
    await inFlight;
    const now = await show('MainPID', 'ActiveState');
    expect(now.ActiveState).toBe('active');
    expect(now.MainPID).not.toBe(MainPID);
    expect((await box.check(['dpkg-query', '-W', '-f', '${Version}', 'panic-pair'])).trim()).toBe(UPGRADE);
    expect(readFileSync(inside('/etc/panic-pair/config.json'), 'utf8')).toBe(settings);
    expect(readFileSync(inside('/etc/panic-pair/api-token'), 'utf8')).toBe(`${TOKEN}\n`);
    expect(readFileSync(inside('/etc/panic-pair/installer-code'), 'utf8')).toBe(`${INSTALLER_CODE}\n`);
    await waitFor(async () => ((await devices()).every((device) => device.state === 'linked') ? true : undefined), {
      what: 'every record linked after the upgrade',
      timeoutMs: STEP_MS,
    });
    expect((await devices()).map((device) => device.deviceId).sort()).toEqual(['DEB-1', 'DEB-2']);
    expect(simulator.stats().postsByDevice).toMatchObject({ 'DEB-1': 1 });
  });

  it('remove stops the service and keeps the store; purge removes settings and state', async () => {
    await apt('remove', 'panic-pair');
    expect((await show('ActiveState')).ActiveState).not.toBe('active');
    // Every stop (the upgrade's restart, the removal) was clean, with BLE on auto and no Bluetooth here.
    const journal = await box.check(['journalctl', '--no-pager', '-o', 'cat', '-u', UNIT]);
    expect(journal).toContain('Deactivated successfully');
    expect(journal).not.toMatch(/code=(dumped|killed)|status=\d+\/|Failed with result/);
    expect(store()).toContain('DEB-2');
    expect(existsSync(inside('/etc/panic-pair/config.json'))).toBe(true);
    // The upgrade's probation was still under way: its watch goes with the package, and would
    // otherwise install the version before again.
    expect(existsSync(inside('/etc/systemd/system/panic-pair-probation.service'))).toBe(false);
    expect(existsSync(inside('/var/lib/panic-pair-update'))).toBe(false);

    await apt('purge', 'panic-pair');
    expect(existsSync(inside('/var/lib/panic-pair'))).toBe(false);
    expect(existsSync(inside('/etc/panic-pair'))).toBe(false);
    expect(existsSync(inside('/usr/lib/panic-pair'))).toBe(false);
  });
});
