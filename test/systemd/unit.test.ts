import { spawnSync } from 'node:child_process';
import { lstat, mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT } from '../support/binary.js';

// The unit file as systemd itself judges it, and the install script run into a scratch root.

const UNIT = join(ROOT, 'systemd', 'panic-pair.service');
const INSTALL = join(ROOT, 'systemd', 'install.sh');
const INSTALLED_BIN = '/opt/panic-pair/bin/panic-pair.js';
const MAX_EXPOSURE = 2.5;

const analyzeMissing = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).error !== undefined;
if (analyzeMissing) process.stderr.write('skipping the unit file checks: systemd-analyze is not installed\n');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-systemd-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The unit as installed, but starting this checkout's binary: verify needs ExecStart to exist. */
async function unitHere(): Promise<string> {
  const text = await readFile(UNIT, 'utf8');
  expect(text).toContain(`ExecStart=${INSTALLED_BIN} run`);
  const file = join(dir, 'panic-pair.service');
  await writeFile(file, text.replace(`ExecStart=${INSTALLED_BIN}`, `ExecStart=${BIN}`));
  return file;
}

describe.skipIf(analyzeMissing)('systemd/panic-pair.service', () => {
  it('passes `systemd-analyze verify` without a word on stderr', async () => {
    const result = spawnSync('systemd-analyze', ['verify', await unitHere()], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it(`has an overall exposure of ${MAX_EXPOSURE} or lower in \`systemd-analyze security --offline=true\``, async () => {
    const result = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', await unitHere()], { encoding: 'utf8' });
    const match = /Overall exposure level for panic-pair\.service: (\d+(?:\.\d+)?)/.exec(result.stdout);
    expect(match, result.stdout + result.stderr).not.toBeNull();
    expect(Number(match?.[1])).toBeLessThanOrEqual(MAX_EXPOSURE);
  });

  it('holds what the daemon relies on', async () => {
    const text = await readFile(UNIT, 'utf8');
    for (const line of [
      'Type=notify',
      'NotifyAccess=all',
      'WatchdogSec=30s',
      `ExecReload=/bin/sh -c 'kill -HUP "$1"' panic-pair-reload $MAINPID`,
      'Restart=on-failure',
      'User=panic-pair',
      'RuntimeDirectoryMode=0750',
      'LoadCredential=api-token:/etc/panic-pair/api-token',
      'AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN',
      'CapabilityBoundingSet=CAP_NET_RAW CAP_NET_ADMIN',
      'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_BLUETOOTH',
      'SystemCallFilter=@system-service',
      'UMask=0077',
    ]) {
      expect(text.split('\n')).toContain(line);
    }
    expect(text).not.toMatch(/^MemoryDenyWriteExecute=yes/m);
  });
});

describe('systemd/install.sh', () => {
  it('is valid bash', () => {
    const result = spawnSync('bash', ['-n', INSTALL], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('installs into a DESTDIR, and a second run keeps the configuration and the token', async () => {
    assertBuilt();
    const root = join(dir, 'root');
    const token = join(dir, 'token');
    await writeFile(token, 'install-token-93\n');
    const install = (...args: string[]) =>
      spawnSync('bash', [INSTALL, '--no-npm', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, DESTDIR: root } });

    const first = install('--api-url', 'https://api.example.com', '--customer-id', '42', '--token-file', token, '--add-user', 'pi');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('would run: useradd --system --gid panic-pair');
    expect(first.stdout).toContain('would run: usermod -aG panic-pair pi');
    expect(first.stdout).toContain('would run: systemctl enable panic-pair.service');
    expect(first.stdout).toContain('sudo systemctl enable --now panic-pair');
    expect(first.stdout).not.toContain('install-token-93');

    expect(await readlink(join(root, 'usr/local/bin/panic-pair'))).toBe(INSTALLED_BIN);
    expect((await lstat(join(root, INSTALLED_BIN))).isFile()).toBe(true);
    expect(await readFile(join(root, 'etc/systemd/system/panic-pair.service'), 'utf8')).toBe(await readFile(UNIT, 'utf8'));
    expect(JSON.parse(await readFile(join(root, 'etc/panic-pair/config.json'), 'utf8'))).toEqual({ apiUrl: 'https://api.example.com', customerId: 42 });
    expect((await stat(join(root, 'etc/panic-pair/config.json'))).mode & 0o777).toBe(0o644);
    expect((await stat(join(root, 'etc/panic-pair/api-token'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(root, 'etc/panic-pair/api-token'), 'utf8')).toBe('install-token-93\n');

    // An upgrade: no values given, everything kept; a value given replaces only itself.
    const config = join(root, 'etc/panic-pair/config.json');
    await writeFile(config, JSON.stringify({ apiUrl: 'https://api.example.com', customerId: 42, logLevel: 'debug' }));
    expect(install().status).toBe(0);
    expect(install('--customer-id', '43').status).toBe(0);
    expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({ apiUrl: 'https://api.example.com', customerId: 43, logLevel: 'debug' });
    expect(await readFile(join(root, 'etc/panic-pair/api-token'), 'utf8')).toBe('install-token-93\n');
  });

  it("takes the page's installer code as a root-only file handed over as a credential", async () => {
    assertBuilt();
    const root = join(dir, 'web-root');
    const code = join(dir, 'installer-code');
    await writeFile(code, 'label-code-4711\n');
    const result = spawnSync(
      'bash',
      [INSTALL, '--no-npm', '--api-url', 'https://api.example.com', '--customer-id', '42', '--web-code-file', code, '--web-listen', '0.0.0.0:8080'],
      { encoding: 'utf8', env: { PATH: process.env.PATH, DESTDIR: root } },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain('label-code-4711');
    expect((await stat(join(root, 'etc/panic-pair/installer-code'))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(join(root, 'etc/panic-pair/config.json'), 'utf8'))).toMatchObject({ webListen: '0.0.0.0:8080' });
    const dropIn = await readFile(join(root, 'etc/systemd/system/panic-pair.service.d/installer-code.conf'), 'utf8');
    expect(dropIn.split('\n')).toEqual(expect.arrayContaining([
      'LoadCredential=installer-code:/etc/panic-pair/installer-code',
      'Environment=PANIC_PAIR_WEB_CODE_FILE=%d/installer-code',
    ]));
  });

  it('refuses a first install without the API address and customer', async () => {
    const result = spawnSync('bash', [INSTALL, '--no-npm'], { encoding: 'utf8', env: { PATH: process.env.PATH, DESTDIR: join(dir, 'empty-root') } });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('first install: give --api-url and --customer-id');
    await expect(stat(join(dir, 'empty-root'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
