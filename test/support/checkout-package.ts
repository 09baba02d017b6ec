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
function packagesFolder(): string {
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
export async function checkoutPackage(architecture = 'amd64', version = CHECKOUT_VERSION): Promise<string> {
  const folder = path.join(packagesFolder(), `${architecture}-${version}`);
  const deb = path.join(folder, `panic-pair_${version}_${architecture}.deb`);
  return oneAtATime(async () => {
    if (existsSync(deb)) return deb;
    // Built beside it and renamed into place: a build cut short never passes for the package.
    const building = `${folder}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    try {
      await promisify(execFile)(process.execPath, [path.join(ROOT, 'packaging', 'deb', 'build.mjs'), '--arch', architecture, '--version', version, '--out', building], { cwd: ROOT });
      rmSync(path.join(building, `work-${architecture}`), { recursive: true, force: true });
      renameSync(building, folder);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      throw new Error(`npm run deb -- --arch ${architecture} --version ${version} failed: ${(error as Error).message}`);
    }
    return deb;
  });
}

const BUILD_LOCK = path.join(tmpdir(), 'panic-pair-deb-build.lock');

/**
 * Runs `build` while holding a lock that the other test processes of this machine wait for: two
 * node-gyp builds of the HCI module at once (two suites starting together) share node-addon-api's
 * build files, and one failed with "No rule to make target 'Release/nothing.a'".
 */
async function oneAtATime<T>(build: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      writeFileSync(path.join(BUILD_LOCK, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!holderAlive()) rmSync(BUILD_LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await build();
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

function holderAlive(): boolean {
  try {
    process.kill(Number(readFileSync(path.join(BUILD_LOCK, 'pid'), 'utf8')), 0);
    return true;
  } catch (error) {
    // No pid yet: its holder is writing it, unless it died before (an old lock).
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return false;
    try {
      return Date.now() - statSync(BUILD_LOCK).mtimeMs < 10_000;
    } catch {
      return false;
    }
  }
}
