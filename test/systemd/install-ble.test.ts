import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, ROOT } from '../support/binary.js';

// systemd/install.sh's word on Bluetooth when npm does not run the HCI module's install script (as
// a hub's npm configuration may tell it, and as npm 12 does where allowScripts does not name the
// module): the real script, the real `npm ci` (offline, from npm's cache, which the suite's own
// `npm ci` filled) into a DESTDIR. The module's prebuilt native part still loads where one fits
// the machine; where none does (made so by pointing node-gyp-build's own setting for the module,
// <NAME>_PREBUILD, at an empty folder), BLE is off, said loudly.

const dir = mkdtempSync(join(tmpdir(), 'install-ble-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function install(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(ROOT, 'systemd', 'install.sh'), ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_offline: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** node-gyp-build's setting for where the module's native parts are: here, where there are none. */
const NO_PREBUILDS = { '@STOPROCENT/BLUETOOTH_HCI_SOCKET_PREBUILD': join(dir, 'no-prebuilds') };

describe('install.sh when npm skips the HCI module\'s install script', () => {
  it('the prebuilt module that fits this machine loads: BLE stays on', async () => {
    assertBuilt();
    const args = ['--api-url', 'http://127.0.0.1:9', '--customer-id', '42', '--require-ble'];
    const result = await install(args, { DESTDIR: join(dir, 'prebuilt'), npm_config_ignore_scripts: 'true' });
    expect(result.stdout).toContain('Bluetooth: the HCI module loads');
    expect(result.stderr).not.toContain('BLUETOOTH WILL BE OFF');
    expect(result.code).toBe(0);
  }, 180_000);

  it('with no prebuilt module for the machine: says BLE will be off, why and the fix, instead of "rebuilt successfully"; --require-ble stops', async () => {
    assertBuilt();
    const args = ['--api-url', 'http://127.0.0.1:9', '--customer-id', '42', '--require-ble'];
    const result = await install(args, { DESTDIR: join(dir, 'root'), npm_config_ignore_scripts: 'true', ...NO_PREBUILDS });
    expect(result.stderr).toContain('install.sh: BLUETOOTH WILL BE OFF: the HCI module does not load: Error: No native build was found for platform=linux');
    expect(result.stderr).toContain("npm did not run the module's install script: ignore-scripts is set");
    expect(result.stderr).toContain('install.sh: --require-ble: stopping; the installed package is left as it was');
    expect(result.stdout).not.toContain('Bluetooth: the HCI module loads');
    expect(result.code).toBe(1);
  }, 180_000);
});
