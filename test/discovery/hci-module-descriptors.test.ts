import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { hciSocketFile } from '../../src/discovery/noble-loader.js';
import { compileHciKernel, startHciKernel, type HciKernel } from '../support/hci-kernel.js';

// The HCI module's own build closes a stopped socket's descriptor a second time when the socket is
// collected: by then the number is someone else's. In the kernel test that someone was a control
// client (a `pair` ended without an answer), the control socket (`status`: "not running") or a
// descriptor libuv watched (the daemon aborted). The build panic-pair compiles
// (scripts/hci-module.mjs) closes it once; the loader refuses any other (ble-module.test.ts).
// Here both builds go through the same rounds, over the HCI kernel stand-in.

const compiled = await compileHciKernel();
const skipReason = typeof compiled === 'string' ? compiled : undefined;
const dir = mkdtempSync(path.join(tmpdir(), 'hci-descriptors-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  if (typeof compiled !== 'string') compiled.dispose();
});

interface Rounds {
  collected: number;
  rounds: number;
  closed: number;
}

async function stoppedSockets(kernel: HciKernel, env: Record<string, string> = {}): Promise<Rounds> {
  const script = path.join(import.meta.dirname, 'fixtures', 'stopped-sockets.mjs');
  const files = mkdtempSync(path.join(dir, 'files-'));
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', script, hciSocketFile(), files], {
    env: { ...process.env, ...kernel.env, ...env },
  });
  return JSON.parse(stdout) as Rounds;
}

describe.skipIf(skipReason !== undefined)(`a stopped HCI socket's descriptor${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('the build panic-pair compiles closes it once: a file opened after the stop stays open once the socket is collected', async () => {
    if (typeof compiled === 'string') return;
    const kernel = await startHciKernel(compiled.library);
    try {
      const result = await stoppedSockets(kernel);
      expect(result.collected).toBe(result.rounds);
      expect(result.closed).toBe(0);
    } finally {
      await kernel.close();
    }
  });

  it("the module's prebuilt one closes it again, someone else's by then (why it is refused)", async () => {
    if (typeof compiled === 'string') return;
    const kernel = await startHciKernel(compiled.library);
    try {
      // node-gyp-build's own switch: its prebuilt binaries, not the build in the module's folder.
      const result = await stoppedSockets(kernel, { PREBUILDS_ONLY: '1' });
      expect(result.collected).toBe(result.rounds);
      expect(result.closed).toBeGreaterThan(0);
    } finally {
      await kernel.close();
    }
  });
});
