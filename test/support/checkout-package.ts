import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './binary.js';

// The Debian package of this checkout (`npm run deb`), built once per test run for each
// architecture and version, and shared by every suite that installs it: the kernel guests, the
// systemd containers, the Node-API checks. Nine suites built the same amd64 package, about 11 s
// each on an idle machine and far more beside the rest, one at a time. The run's global setup
// (packages.global-setup.ts) names the folder, and removes it when the run ends; a suite copies the
// package, never changes or removes it.

/** The folder the run's packages are built into, set by the global setup for every worker. */
export const PACKAGES_ENV = 'PANIC_PAIR_TEST_PACKAGES';

export const CHECKOUT_VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let ownFolder: string | undefined;

/** Outside a run (one file run by hand without the setup): a folder of this process's, removed at its exit. */
export function packagesFolder(): string {
  const shared = process.env[PACKAGES_ENV];
  if (shared !== undefined && shared !== '') return shared;
  if (ownFolder === undefined) {
    const folder = mkdtempSync(path.join(tmpdir(), 'panic-pair-packages-'));
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    ownFolder = folder;
  }
  return ownFolder;
}

/**
 * The path of this checkout's package for `architecture`, of `version` (the checkout's unless
 * given), built on first use in the run. Throws when the build fails: a package that does not build
 * is a failure, never a reason to skip.
 */
export async function checkoutPackage(architecture = 'amd64', version = CHECKOUT_VERSION, options: { background?: boolean } = {}): Promise<string> {
  const folder = path.join(packagesFolder(), `${architecture}-${version}`);
  const deb = path.join(folder, `panic-pair_${version}_${architecture}.deb`);
  if (existsSync(deb)) return deb;
  return oneBuildAtATime('deb-build', async () => {
    if (existsSync(deb)) return deb;
    // Built beside it and renamed into place: a build cut short never passes for the package.
    const building = `${folder}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    try {
      const build = [process.execPath, path.join(ROOT, 'packaging', 'deb', 'build.mjs'), '--arch', architecture, '--version', version, '--out', building];
      const [command, ...args] = options.background === true ? niced(build) : build;
      await promisify(execFile)(command!, args, { cwd: ROOT });
      rmSync(path.join(building, `work-${architecture}`), { recursive: true, force: true });
      renameSync(building, folder);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      throw new Error(`npm run deb -- --arch ${architecture} --version ${version} failed: ${(error as Error).message}`);
    }
    return deb;
  });
}

/**
 * A command line run at the lowest priority: a build made ahead of its use, in the background of
 * the suites that run meanwhile (roots.global-setup.ts), takes only the time they leave idle.
 */
export function niced(commandLine: readonly string[]): string[] {
  return ['nice', '-n', '19', ...commandLine];
}

/**
 * Runs `build` while holding the lock `name`, which the other test processes of this machine wait
 * for. The packages' lock: two node-gyp builds of the HCI module at once (two suites starting
 * together) share node-addon-api's build files, and one failed with "No rule to make target
 * 'Release/nothing.a'". The kernel guests' images (kernel-image.ts) have a lock of their own.
 */
export async function oneBuildAtATime<T>(name: string, build: () => Promise<T>): Promise<T> {
  const lock = path.join(tmpdir(), `panic-pair-${name}.lock`);
  while (!tryLock(lock)) await new Promise((resolve) => setTimeout(resolve, 500));
  try {
    return await build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Takes the lock directory `lock` for this process when it is free: true when taken. A lock whose
 * holder is gone is removed, to be taken at the next try.
 */
export function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    writeFileSync(path.join(lock, 'pid'), String(process.pid));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (!holderAlive(lock)) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

function holderAlive(lock: string): boolean {
  try {
    process.kill(Number(readFileSync(path.join(lock, 'pid'), 'utf8')), 0);
    return true;
  } catch (error) {
    // No pid yet: its holder is writing it, unless it died before (an old lock).
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return false;
    try {
      return Date.now() - statSync(lock).mtimeMs < 10_000;
    } catch {
      return false;
    }
  }
}
