import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, ROOT } from '../support/binary.js';

// systemd/install.sh's word on Bluetooth: the real script, the real `npm ci` (offline, from npm's
// cache, which the suite's own `npm ci` filled) into a DESTDIR. It fixes the HCI module's sources
// and has npm compile them (scripts/hci-module.mjs says why the module's prebuilt binaries are not
// used). When npm does not run the module's install script (as a hub's npm configuration may tell
// it, and as npm 12 does where allowScripts does not name the module), BLE is off, said loudly:
// whether a prebuilt binary fits the machine or not (made so by pointing node-gyp-build's own
// setting for the module, <NAME>_PREBUILD, at an empty folder).

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

describe("install.sh and the HCI module's build", () => {
  it('the fixed sources are compiled here and load: BLE stays on', async () => {
    assertBuilt();
    const args = ['--api-url', 'http://127.0.0.1:9', '--customer-id', '42', '--require-ble'];
    const result = await install(args, { DESTDIR: join(dir, 'compiled') });
    expect(result.stdout).toContain('Bluetooth: the HCI module loads');
    expect(result.stderr).not.toContain('BLUETOOTH WILL BE OFF');
    expect(result.code).toBe(0);
  }, 300_000);

  it('npm skips the install script: the prebuilt module that fits this machine is not taken, BLE is off, said loudly', async () => {
    assertBuilt();
    const args = ['--api-url', 'http://127.0.0.1:9', '--customer-id', '42'];
    const result = await install(args, { DESTDIR: join(dir, 'prebuilt'), npm_config_ignore_scripts: 'true' });
    expect(result.stderr).toContain('install.sh: BLUETOOTH WILL BE OFF: the HCI module does not load: Error: only the prebuilt module is there, which lacks the descriptor fix');
    expect(result.stderr).toContain("npm did not run the module's install script: ignore-scripts is set");
    expect(result.stdout).not.toContain('Bluetooth: the HCI module loads');
    // Without --require-ble the rest is installed.
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
