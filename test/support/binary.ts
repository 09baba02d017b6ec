import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTROL_SOCKET_NAME } from '../../src/config/locations.js';
import { callDaemon } from '../../src/control/client.js';

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
  /** Written to its standard input, which is then closed (otherwise it has none). */
  input?: string;
}

/** Runs the real binary; async, so the test keeps publishing while it runs. */
export function runBinary(args: string[], env: Record<string, string | undefined>, options: RunOptions = {}): RunningCli {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) clean[key] = value;
  let stdout = '';
  let stderr = '';
  const result = new Promise<CliResult>((resolve, reject) => {
    // Another user may not be able to enter the checkout (a 0700 home directory): it runs a copy.
    const other = options.uid !== undefined && options.uid !== process.getuid?.();
    const root = other ? readableCopy() : ROOT;
    const child = spawn(process.execPath, [path.join(root, 'bin', 'panic-pair.js'), ...args], {
      cwd: root,
      env: clean,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    if (options.input !== undefined) child.stdin?.end(options.input);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return Object.assign(result, { stdout: () => stdout });
}

/**
 * What `status --json` or `devices --json` would print, asked of the daemon's control socket in
 * `runtimeDir` from this process with the client those commands use. For a harness that polls
 * while it waits for a state: a node start for each poll cost the run more CPU than any one test.
 * A test about the commands themselves runs the binary.
 */
export function askDaemonSocket<T>(runtimeDir: string, type: 'status' | 'devices'): Promise<T> {
  return callDaemon<T>(path.join(runtimeDir, CONTROL_SOCKET_NAME), { type }, { timeoutMs: 10_000 });
}

let copy: string | undefined;

/**
 * What the CLI runs (bin, dist, package.json and the runtime packages the lockfile names, native
 * optional ones left out), copied once per test process into a directory every user can read. The
 * checkout itself may sit where only its owner can go. A test worker may end without an `exit`
 * event, so each copy names its process and copies of processes gone are removed here.
 */
function readableCopy(): string {
  if (copy !== undefined) return copy;
  removeOrphanCopies();
  const root = mkdtempSync(path.join(tmpdir(), COPY_PREFIX));
  writeFileSync(path.join(root, 'owner.pid'), String(process.pid));
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  chmodSync(root, 0o755);
  for (const name of ['bin', 'dist']) cpSync(path.join(ROOT, name), path.join(root, name), { recursive: true });
  copyFileSync(path.join(ROOT, 'package.json'), path.join(root, 'package.json'));
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; optional?: boolean }>;
  };
  for (const [where, entry] of Object.entries(lock.packages)) {
    // Top-level packages only: the nested ones come with them.
    if (!/^node_modules\/(@[^/]+\/)?[^/]+$/.test(where) || entry.dev === true || entry.optional === true) continue;
    if (existsSync(path.join(ROOT, where))) cpSync(path.join(ROOT, where), path.join(root, where), { recursive: true });
  }
  copy = root;
  return root;
}

const COPY_PREFIX = 'panic-pair-cli-';

function removeOrphanCopies(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(COPY_PREFIX)) continue;
    const dir = path.join(tmpdir(), name);
    let pid: number;
    try {
      pid = Number(readFileSync(path.join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue; // being made right now, or not ours
    }
    if (!isAlive(pid)) rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
