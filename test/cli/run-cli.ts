import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Runs the real, built binary as an installer would, with the daemon's runtime dir pointed at the
// test's own control server. `npm test` builds first; run `npm run build` before vitest alone.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'bin', 'panic-pair.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  runtimeDir: string;
  uid?: number;
  gid?: number;
}

export function assertBuilt(): void {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('panic-pair is not built: run `npm run build` first');
}

/** Only what the CLI needs: no PANIC_PAIR_* from the developer's shell leaks into a test. */
function cleanEnv(runtimeDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, PANIC_PAIR_RUNTIME_DIR: runtimeDir };
  return env;
}

export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: cleanEnv(options.runtimeDir),
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
