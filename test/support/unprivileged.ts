import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';

// A process without root's privileges, for the tests of a file its mode keeps a user out of. Root
// reads any file, and CI runs as root: there such a process runs as `nobody`, in nobody's group and
// no other. Node's spawn sets the ids itself (libuv drops the supplementary groups first), so no
// tool is needed; a run as another user already is unprivileged, and runs as itself.

export interface Identity {
  uid: number;
  gid: number;
}

/** The user nobody's ids on Debian and most Linux systems, where /etc/passwd does not say. */
const NOBODY: Identity = { uid: 65534, gid: 65534 };

/** nobody when this process is root; undefined when it is not (it is unprivileged itself). */
export function unprivileged(): Identity | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const entry = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('nobody:'))
      ?.split(':');
    if (entry !== undefined) return { uid: Number(entry[2]), gid: Number(entry[3]) };
  } catch {
    // no passwd file: the usual ids
  }
  return NOBODY;
}

export interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `entry`, a TypeScript file of this checkout, bundled with what it imports into a folder every
 * user can read (the checkout may sit in a home directory only its owner can enter), then run by
 * node with `args`, as `as` (undefined: as this process's user). Bundled from the sources, so it
 * needs no build.
 */
export async function runBundled(entry: string, args: string[], as: Identity | undefined): Promise<ScriptResult> {
  const folder = mkdtempSync(path.join(tmpdir(), 'panic-pair-unprivileged-'));
  try {
    chmodSync(folder, 0o755);
    const bundle = path.join(folder, 'entry.mjs');
    await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'warning' });
    chmodSync(bundle, 0o644);
    return await new Promise<ScriptResult>((resolve, reject) => {
      const child = spawn(process.execPath, [bundle, ...args], { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000, ...(as ?? {}) });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
