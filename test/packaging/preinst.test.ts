import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// The armhf package's preinst refuses an ARMv6 board, whose processor cannot run the ARMv7 HCI
// module, before anything is unpacked. Run with a `uname` that says what a board's kernel says.

const PREINST = path.resolve(import.meta.dirname, '..', '..', 'packaging', 'deb', 'files', 'preinst-armhf');
const bin = mkdtempSync(path.join(tmpdir(), 'panic-pair-preinst-'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

async function preinst(machine: string, action = 'install'): Promise<{ code: number; stderr: string }> {
  writeFileSync(path.join(bin, 'uname'), `#!/bin/sh\necho ${machine}\n`);
  chmodSync(path.join(bin, 'uname'), 0o755);
  return promisify(execFile)('sh', [PREINST, action], { env: { PATH: `${bin}:/usr/bin:/bin` } }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

describe('the armhf preinst', () => {
  it('refuses an ARMv6 board on install and upgrade, saying which boards it needs', async () => {
    for (const action of ['install', 'upgrade']) {
      const result = await preinst('armv6l', action);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('the armhf package needs ARMv7 or later (Raspberry Pi 2, 3, 4, 5, Zero 2 W). Nothing was installed.');
    }
  });

  it('lets ARMv7 and a 64-bit kernel under a 32-bit system through', async () => {
    expect(await preinst('armv7l')).toEqual({ code: 0, stderr: '' });
    expect(await preinst('aarch64')).toEqual({ code: 0, stderr: '' });
  });
});
