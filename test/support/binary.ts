import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The built `panic-pair` binary, run as a user runs it. `npm test` builds first; run
// `npm run build` before vitest alone.

export const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(ROOT, 'bin', 'panic-pair.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function assertBuilt(): void {
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('panic-pair is not built: run `npm run build` first');
}

/** A command still running: awaiting it gives the result; `stdout()` is what it printed so far. */
export type RunningCli = Promise<CliResult> & { stdout(): string };

export interface RunOptions {
  /** Run as this user and group (the tests run as root). */
  uid?: number;
  gid?: number;
  /** Killed after this long, so a test that expects an exit cannot hang. */
  timeoutMs?: number;
}

/** Runs the real binary; async, so the test keeps publishing while it runs. */
export function runBinary(args: string[], env: Record<string, string | undefined>, options: RunOptions = {}): RunningCli {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) clean[key] = value;
  let stdout = '';
  let stderr = '';
  const result = new Promise<CliResult>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: clean,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return Object.assign(result, { stdout: () => stdout });
}

