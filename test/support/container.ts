import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { startOnRootOrReason, lastLines, runProcess, type ContainerRecipe, type RunResult } from './container-root.js';
import { findExecutable } from './installed.js';
import { waitFor } from './wait.js';

export { cacheKey, cachedRoot, TEST_CACHE_DIR, type ContainerRecipe, type RunResult } from './container-root.js';

// A Debian system booted with systemd as PID 1 in a container, for tests of what only a real
// init shows: units, sd_notify, the watchdog, credentials, packages. The root file system is made
// once by mmdebstrap and cached outside the checkout; each boot runs on a throw-away overlay (or a
// copy) of it, so nothing a test does reaches the cache. The container shares the host's network,
// so servers a test starts on 127.0.0.1 are reachable from inside. Root only.
//
//   const box = await bootOrReason({ suite: 'deb', release: 'trixie', packages: ['systemd', 'systemd-sysv', 'dbus', 'nodejs'] });
//   if (typeof box === 'string') -> skip, saying box; else box.check(['systemctl', ...]), files under box.root, box.stop()
//
// Debian 13 with its own nodejs (20.19) and systemd 257 boots this way (its root took 65 s to
// build here, once); test/systemd/live-systemd.test.ts boots Debian 12 with the host's node.

export interface BootOptions {
  /** Makes the host's node (process.execPath) /usr/local/bin/node inside, read-only. */
  hostNode?: boolean;
}

export interface Container {
  /** The container's root as a host path: files written under it are seen inside. */
  readonly root: string;
  /** PID 1 of the container, as the host numbers it. */
  readonly leader: number;
  /** Runs a command inside, as root, with a clean environment (PATH, LANG and `env` only). */
  run(command: readonly string[], options?: { env?: Record<string, string>; input?: string }): Promise<RunResult>;
  /** As run(), but throws with the output unless the command exits 0; resolves with stdout. */
  check(command: readonly string[], options?: { env?: Record<string, string>; input?: string }): Promise<string>;
  /**
   * Powers the system off and boots it again on the same root (files written under `root` stay),
   * resolving once systemd inside has finished booting; `leader` is then the new PID 1. With
   * `powerCut`, every process inside is killed at once (SIGKILL), as a power failure stops a hub:
   * no unit is stopped, no file synced beyond what was.
   */
  reboot(options?: { powerCut?: boolean }): Promise<void>;
  /** Powers the container off, and removes its copy of the root even when that fails. */
  stop(): Promise<void>;
}

const INSIDE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const TOOLS = ['systemd-nspawn', 'mmdebstrap', 'nsenter', 'mount', 'umount'];
const BOOT_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 30_000;

/** Why no container can run here, or undefined when one may; nothing is started to find out. */
export function containerUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `containers need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'systemd-nspawn and mmdebstrap need root';
  const missing = TOOLS.filter((tool) => findExecutable(tool) === undefined);
  if (missing.length > 0) return `not installed: ${missing.join(', ')} (apt-get install systemd-container mmdebstrap)`;
  if (process.env.PANIC_PAIR_TEST_CONTAINERS === 'off') return 'PANIC_PAIR_TEST_CONTAINERS=off';
  return undefined;
}

/**
 * Boots a container, or says why none can run here (no root, a tool missing): a suite skips with
 * that reason. A root that cannot be built or a container that does not boot throws: the suite fails.
 */
export async function bootOrReason(recipe: ContainerRecipe, options: BootOptions = {}): Promise<Container | string> {
  return startOnRootOrReason(recipe, containerUnavailable(), 'the container', (root) => boot(recipe, root, options));
}

async function boot(recipe: ContainerRecipe, lower: string, options: BootOptions): Promise<Container> {
  const scratch = await mkdtemp(path.join('/var/tmp', `panic-pair-${recipe.suite}-`));
  const root = path.join(scratch, 'root');
  let mounted = false;
  let nspawn: ChildProcess | undefined;
  let leader = 0;
  const cleanUp = async (): Promise<void> => {
    await kill();
    if (mounted) execFileSync('umount', ['--lazy', root], { stdio: 'ignore' });
    mounted = false;
    await rm(scratch, { recursive: true, force: true });
    live.delete(emergency);
  };
  const kill = async (): Promise<void> => {
    if (leader > 0) signal(leader, 'SIGKILL');
    if (nspawn !== undefined && nspawn.exitCode === null && nspawn.signalCode === null) {
      signal(nspawn.pid ?? 0, 'SIGKILL');
      await new Promise((resolve) => nspawn?.once('exit', resolve));
    }
  };
  // At exit nothing can be awaited: the container is killed and the copy unmounted, at least.
  const emergency = (): void => {
    if (leader > 0) signal(leader, 'SIGKILL');
    if (nspawn?.pid !== undefined) signal(nspawn.pid, 'SIGKILL');
    if (mounted) spawnQuietly('umount', ['--lazy', root]);
    rmSync(scratch, { recursive: true, force: true });
  };
  live.add(emergency);
  try {
    mounted = await overlay(lower, scratch, root);
    if (!mounted) execFileSync('cp', ['-a', '--reflink=auto', lower, root]);
    const binds = options.hostNode ? hostNodeBinds(root) : [];
    const start = async (): Promise<void> => {
      const system = await startSystem(root, binds, (child) => (nspawn = child));
      leader = system.leader;
    };
    await start();
    // Power off as stop() does, keeping the root, and boot it again: what a second boot sees.
    const reboot = async (options: { powerCut?: boolean } = {}): Promise<void> => {
      if (options.powerCut !== true) await powerOff(nspawn);
      await kill();
      leader = 0;
      await start();
    };
    return enter(root, () => leader, () => nspawn, cleanUp, reboot);
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

/** systemd-nspawn booting `root`, once systemd inside says the boot is over; `spawned` learns the process at once. */
async function startSystem(root: string, binds: readonly string[], spawned: (child: ChildProcess) => void): Promise<{ leader: number }> {
  let output = '';
  const child = spawn('systemd-nspawn', ['-D', root, '-b', '--register=no', '--keep-unit', '--console=read-only', '-q', ...binds], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned(child);
  const collect = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-4_000));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // waitFor retries a probe that throws, so an nspawn that gave up is a value here, not an error.
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const found = await waitFor(() => (gone() ? 'exited' : leaderOf(child.pid ?? 0)), { timeoutMs: BOOT_TIMEOUT_MS, what: 'the container to start' });
  if (found === 'exited') throw new Error(`systemd-nspawn exited: ${lastLines(output)}`);
  const state = await waitFor(
    async () => {
      if (gone()) return 'exited';
      const now = (await runInside(found, ['systemctl', 'is-system-running', '--wait'])).stdout.trim();
      return now === 'running' || now === 'degraded' ? now : undefined;
    },
    { timeoutMs: BOOT_TIMEOUT_MS, intervalMs: 200, what: 'systemd in the container to finish booting' },
  );
  if (state === 'exited') throw new Error(`systemd-nspawn exited while booting: ${lastLines(output)}`);
  return { leader: found };
}

function runInside(leader: number, command: readonly string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<RunResult> {
  const env = Object.entries({ PATH: INSIDE_PATH, LANG: 'C.UTF-8', ...options.env }).map(([name, value]) => `${name}=${value}`);
  return runProcess('nsenter', ['-t', String(leader), '-a', '--', '/usr/bin/env', '-i', ...env, ...command], { input: options.input });
}

/** SIGTERM asks nspawn for an orderly power-off of the system inside; resolves once it exited (or after STOP_TIMEOUT_MS). */
async function powerOff(nspawn: ChildProcess | undefined): Promise<void> {
  if (nspawn === undefined) return;
  const exited = new Promise((resolve) => (nspawn.exitCode !== null || nspawn.signalCode !== null ? resolve(undefined) : nspawn.once('exit', resolve)));
  signal(nspawn.pid ?? 0, 'SIGTERM');
  const timer = new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS).unref());
  await Promise.race([exited, timer]);
}

function enter(
  root: string,
  leader: () => number,
  nspawn: () => ChildProcess | undefined,
  cleanUp: () => Promise<void>,
  reboot: Container['reboot'],
): Container {
  const run: Container['run'] = (command, options = {}) => runInside(leader(), command, options);
  let stopping: Promise<void> | undefined;
  return {
    root,
    get leader() {
      return leader();
    },
    run,
    async check(command, options) {
      const result = await run(command, options);
      if (result.code !== 0) throw new Error(`${command.join(' ')} exited ${result.code}\n${result.stdout}${result.stderr}`);
      return result.stdout;
    },
    reboot,
    stop() {
      stopping ??= (async () => {
        try {
          await powerOff(nspawn());
        } finally {
          await cleanUp();
        }
      })();
      return stopping;
    },
  };
}

/** Mounts an overlay of the cached root; false where the kernel has no overlayfs for it. */
async function overlay(lower: string, scratch: string, root: string): Promise<boolean> {
  const upper = path.join(scratch, 'upper');
  const work = path.join(scratch, 'work');
  await Promise.all([mkdir(upper), mkdir(work), mkdir(root)]);
  const result = await runProcess('mount', ['-t', 'overlay', 'overlay', '-o', `lowerdir=${lower},upperdir=${upper},workdir=${work}`, root]);
  if (result.code === 0) return true;
  await rm(root, { recursive: true, force: true });
  return false;
}

/** nspawn binds for the host's node, plus any library it links that the root lacks. */
function hostNodeBinds(root: string): string[] {
  const binds = [`--bind-ro=${process.execPath}:/usr/local/bin/node`];
  const ldd = execFileSync('ldd', [process.execPath], { encoding: 'utf8' });
  for (const match of ldd.matchAll(/=> (\/\S+)/g)) {
    const library = match[1] ?? '';
    if (!existsSync(path.join(root, library))) binds.push(`--bind-ro=${library}`);
  }
  return binds;
}

/** The container's PID 1: nspawn's child, once it runs systemd. */
function leaderOf(nspawnPid: number): number | undefined {
  try {
    const children = readFileSync(`/proc/${nspawnPid}/task/${nspawnPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    for (const child of children) {
      if (readFileSync(`/proc/${child}/comm`, 'utf8').trim() === 'systemd') return Number(child);
    }
  } catch {
    // not there yet
  }
  return undefined;
}

const live = new Set<() => void>();
process.once('exit', () => {
  for (const kill of live) kill();
});

function signal(pid: number, name: NodeJS.Signals): void {
  if (pid <= 0) return;
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

function spawnQuietly(command: string, args: string[]): void {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
  } catch {
    // best effort at exit
  }
}
