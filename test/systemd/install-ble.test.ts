import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, ROOT } from '../support/binary.js';

// systemd/install.sh's word on Bluetooth when npm does not build the HCI module: the real script,
// the real `npm ci` (offline, from npm's cache, which the suite's own `npm ci` filled) into a
// DESTDIR, with npm told to ignore install scripts as a hub's npm configuration may.

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

describe('install.sh when the HCI module is not built', () => {
  it('says BLE will be off, why and the fix, instead of "rebuilt successfully"; --require-ble stops', async () => {
    assertBuilt();
    const root = join(dir, 'root');
    const args = ['--api-url', 'http://127.0.0.1:9', '--customer-id', '42', '--require-ble'];
    const result = await install(args, { DESTDIR: root, npm_config_ignore_scripts: 'true' });
    expect(result.stderr).toContain("install.sh: BLUETOOTH WILL BE OFF: the HCI module does not load: Error: Cannot find module '../build/Release/bluetooth_hci_socket.node'");
    expect(result.stderr).toContain("npm did not run the module's install script: ignore-scripts is set");
    expect(result.stderr).toContain('install.sh: --require-ble: stopping; the installed package is left as it was');
    expect(result.stdout).not.toContain('Bluetooth: the HCI module is built and loads');
    expect(result.code).toBe(1);
  }, 180_000);
});
