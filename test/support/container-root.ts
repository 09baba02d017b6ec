import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The root file systems test/support/container.ts boots: made once by mmdebstrap from a recipe
// and cached outside the checkout, under a name that changes with the recipe.

/** Where cached roots (and other slow-to-make test fixtures) live; PANIC_PAIR_TEST_CACHE moves it. */
export const TEST_CACHE_DIR = process.env.PANIC_PAIR_TEST_CACHE ?? '/var/cache/panic-pair-tests';
/** Bumped when the way a root is made changes, so caches made the old way are not used. */
const RECIPE_VERSION = 1;
const MIRROR = 'http://deb.debian.org/debian';
// A foreign architecture's root runs its maintainer scripts under qemu-user: about 11 minutes
// alone, far more on a busy machine.
const BUILD_TIMEOUT_MS = 45 * 60_000;

export interface ContainerRecipe {
  /** Names the cache entry and the temporary copies, e.g. 'live-systemd'. */
  suite: string;
  /** A Debian release: 'bookworm', 'trixie'. */
  release: string;
  /** mmdebstrap's --include; systemd, systemd-sysv and dbus are what a boot needs. */
  packages: readonly string[];
  /** A Debian architecture other than the host's ('arm64', 'armhf'): made under qemu-user (binfmt). */
  architecture?: string;
  /** mmdebstrap's --essential-hook commands, run once the essential packages are in, before the others ("$1" is the root). */
  essential?: readonly string[];
  /** mmdebstrap's --customize-hook commands, run on the finished root ("$1" is its path). */
  customize?: readonly string[];
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cacheKey(recipe: ContainerRecipe): string {
  // The host's architecture is left out of the key, so the roots made before the field stay cached.
  const what = JSON.stringify({ v: RECIPE_VERSION, release: recipe.release, packages: [...recipe.packages].sort(), ...(recipe.architecture === undefined ? {} : { architecture: recipe.architecture }), ...(recipe.essential === undefined ? {} : { essential: recipe.essential }), ...(recipe.customize === undefined ? {} : { customize: recipe.customize }) });
  return `${recipe.suite}-${createHash('sha256').update(what).digest('hex').slice(0, 16)}`;
}

/**
 * What the run's root builder (roots.global-setup.ts) writes to the file named by
 * PANIC_PAIR_TEST_ROOTS_STATUS: the roots it has still to build, the ones it could not, and whether
 * it has finished.
 */
export interface RootsProgress {
  pid: number;
  pending: string[];
  failed: Record<string, string>;
  done: boolean;
}

export const ROOTS_STATUS_ENV = 'PANIC_PAIR_TEST_ROOTS_STATUS';
const PROGRESS_POLL_MS = 2_000;

function progress(): RootsProgress | undefined {
  const file = process.env[ROOTS_STATUS_ENV];
  if (file === undefined || file === '') return undefined;
  try {
    const read = JSON.parse(readFileSync(file, 'utf8')) as RootsProgress;
    if (read.pid === process.pid) return undefined; // the builder itself
    process.kill(read.pid, 0);
    return read;
  } catch {
    return undefined; // no builder, or it is gone: each suite builds what it needs
  }
}

/**
 * Waits while the run's builder has `key` still to build (or, with `everyRoot`, any root at all: a
 * kernel guest never runs beside a build under qemu-user). Resolves with the builder's reason when
 * it could not build `key`.
 */
async function builtByTheRun(key: string, everyRoot: boolean): Promise<string | undefined> {
  let said = false;
  for (;;) {
    const now = progress();
    if (now === undefined) return undefined;
    if (now.done || (!everyRoot && !now.pending.includes(key))) return now.failed[key];
    if (!said) process.stderr.write(`waiting for the run's root builds (${now.pending.join(', ')}) before ${key}\n`);
    said = true;
    await new Promise((resolve) => setTimeout(resolve, PROGRESS_POLL_MS));
  }
}

export interface RootOptions {
  /** Wait until every root of the run is built, not only this one (kernel guests). */
  everyRoot?: boolean;
  /** Ends a build under way (its temporary copy is removed). */
  signal?: AbortSignal;
}

/** The cached root file system for the recipe, made by mmdebstrap on first use (or by the run's builder). */
export async function cachedRoot(recipe: ContainerRecipe, options: RootOptions = {}): Promise<string> {
  const dir = path.join(TEST_CACHE_DIR, cacheKey(recipe));
  const failure = await builtByTheRun(cacheKey(recipe), options.everyRoot === true);
  if (existsSync(path.join(dir, 'etc', 'os-release'))) return dir;
  if (failure !== undefined) throw new Error(failure);
  await mkdir(TEST_CACHE_DIR, { recursive: true, mode: 0o755 });
  // Built beside it and renamed into place, so an interrupted build never passes for a cache.
  const building = `${dir}.building-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  const started = performance.now();
  process.stderr.write(`building the ${recipe.release}${recipe.architecture === undefined ? '' : ` ${recipe.architecture}`} root file system for ${recipe.suite} in ${dir} (once)\n`);
  try {
    const architecture = recipe.architecture === undefined ? [] : [`--architectures=${recipe.architecture}`];
    const hooks = [...(recipe.essential ?? []).map((hook) => `--essential-hook=${hook}`), ...(recipe.customize ?? []).map((hook) => `--customize-hook=${hook}`)];
    // dpkg's fsync of each file it unpacks buys nothing here: a root cut short is thrown away whole.
    const args = ['--variant=minbase', '--dpkgopt=force-unsafe-io', ...architecture, `--include=${recipe.packages.join(',')}`, ...hooks, recipe.release, building, MIRROR];
    const result = await runProcess('mmdebstrap', args, { timeoutMs: BUILD_TIMEOUT_MS, signal: options.signal });
    if (result.code !== 0) throw new Error(`mmdebstrap exited ${result.code}: ${lastLines(result.stderr)}`);
    if (existsSync(dir)) await rm(building, { recursive: true, force: true });
    else await rename(building, dir);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  }
  process.stderr.write(`built ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return dir;
}

/**
 * The recipe's root built (once) and `start` run on it, or why that cannot be here. Only
 * `unavailable` (a tool missing, no root) is a reason, for the suite to skip with. Where the tools
 * are, a root that cannot be built or a start that fails throws: the suite fails, it is never
 * skipped, as the kernel guests' do. PANIC_PAIR_TEST_BROKEN_ROOT=1 hands `start` a root with
 * nothing in it, to show that a suite fails so.
 */
export async function startOnRootOrReason<T>(
  recipe: ContainerRecipe,
  unavailable: string | undefined,
  what: string,
  start: (root: string) => Promise<T>,
): Promise<T | string> {
  if (unavailable !== undefined) return unavailable;
  let root: string;
  try {
    root = await cachedRoot(recipe);
  } catch (error) {
    throw new Error(`cannot build the ${recipe.release} root file system for ${recipe.suite}: ${(error as Error).message}`, { cause: error });
  }
  if (process.env[BROKEN_ROOT_ENV] === '1') root = await brokenRoot(recipe);
  try {
    return await start(root);
  } catch (error) {
    throw new Error(`${what} does not boot: ${(error as Error).message}`, { cause: error });
  }
}

/** Set to 1: every container boots an empty root, and so fails (never skips). */
export const BROKEN_ROOT_ENV = 'PANIC_PAIR_TEST_BROKEN_ROOT';

function brokenRoot(recipe: ContainerRecipe): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `panic-pair-broken-${recipe.suite}-`));
}

export function lastLines(text: string, count = 8): string {
  return text.trim().split('\n').slice(-count).join('\n');
}

export function runProcess(command: string, args: readonly string[], options: { input?: string | undefined; timeoutMs?: number; signal?: AbortSignal | undefined } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], timeout: options.timeoutMs, signal: options.signal });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    // A command that exits without reading its input must not fail the test with EPIPE.
    child.stdin?.on('error', () => undefined).end(options.input);
  });
}
