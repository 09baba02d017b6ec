import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './binary.js';
import { TEST_CACHE_DIR } from './container-root.js';

// The Debian package of the release before the store's schema changed, built from this clone's
// git history: the parent of the commit that made src/store/schema.ts write the current version
// (STORE_SCHEMA_VERSION = 2). Its sources are taken with `git archive` and built by its own
// packaging/deb/build.mjs with this checkout's node_modules (its package-lock.json is this one's);
// that build compiles the HCI module from a copy of the sources in its own work folder, so the
// shared node_modules is not written to. Cached in TEST_CACHE_DIR under the commit, so it is built
// once per machine. A clone without that history (a shallow one) is an error, never a skip.

const run = promisify(execFile);

/** The store version whose introduction marks the release before it. */
const MARK = 'STORE_SCHEMA_VERSION = 2';
const SCHEMA_FILE = 'src/store/schema.ts';

export interface PreviousPackage {
  /** The commit it was built from. */
  commit: string;
  /** Its Debian version: the release's own version with `~prev.<commit>`, so this checkout's is an upgrade. */
  version: string;
  /** The .deb, in the cache. */
  deb: string;
}

const git = async (...args: string[]): Promise<string> => (await run('git', args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();

/** The previous release's commit, or an error that says why the history cannot tell. */
export async function previousReleaseCommit(): Promise<string> {
  const shallow = await git('rev-parse', '--is-shallow-repository').catch((error: Error) => {
    throw new Error(`the package upgrade test needs this checkout's git history, and git cannot read it: ${error.message}`);
  });
  if (shallow === 'true') {
    throw new Error('the package upgrade test builds the previous release from git history, and this clone is shallow: git fetch --unshallow');
  }
  const introduced = (await git('log', '--format=%H', `-S${MARK}`, '--', SCHEMA_FILE)).split('\n').filter(Boolean).at(-1);
  if (introduced === undefined) throw new Error(`no commit in this clone's history introduces "${MARK}" in ${SCHEMA_FILE}: the previous release cannot be found`);
  const parent = await git('rev-parse', '--verify', '--quiet', `${introduced}^`).catch(() => '');
  if (parent === '') throw new Error(`commit ${introduced} (which introduces "${MARK}") has no parent in this clone: the previous release cannot be found`);
  return parent;
}

/** The previous release's amd64 package, built (once per machine) from git history. */
export async function previousPackage(): Promise<PreviousPackage> {
  const commit = await previousReleaseCommit();
  const manifest = JSON.parse(await git('show', `${commit}:package.json`)) as { version: string };
  const version = `${manifest.version}~prev.${commit.slice(0, 12)}`;
  const name = `panic-pair_${version}_amd64.deb`;
  const dir = path.join(TEST_CACHE_DIR, `previous-deb-${commit.slice(0, 16)}`);
  const deb = path.join(dir, name);
  if (existsSync(deb)) return { commit, version, deb };

  const source = await mkdtemp(path.join(tmpdir(), 'panic-pair-previous-'));
  const started = performance.now();
  process.stderr.write(`building the previous release's package (${commit.slice(0, 12)}) into ${dir} (once)\n`);
  try {
    const archive = path.join(source, 'source.tar');
    await git('archive', '--format=tar', '-o', archive, commit);
    const tree = path.join(source, 'tree');
    await mkdir(tree);
    await run('tar', ['-xf', archive, '-C', tree]);
    await symlink(realpathSync(path.join(ROOT, 'node_modules')), path.join(tree, 'node_modules'));
    // Without a .git its changelog is dated by SOURCE_DATE_EPOCH: the commit's own time.
    const epoch = await git('show', '-s', '--format=%ct', commit);
    const out = path.join(source, 'out');
    await run(process.execPath, [path.join(tree, 'packaging', 'deb', 'build.mjs'), '--arch', 'amd64', '--version', version, '--out', out], {
      cwd: tree,
      env: { ...process.env, SOURCE_DATE_EPOCH: epoch },
    }).catch((error: Error & { stderr?: string }) => {
      throw new Error(`the previous release's package build (${commit}) failed: ${error.stderr?.trim() || error.message}`);
    });
    // Moved into place whole, so an interrupted build never passes for a cached one.
    await mkdir(TEST_CACHE_DIR, { recursive: true, mode: 0o755 });
    const building = `${dir}.building-${process.pid}`;
    await rm(building, { recursive: true, force: true });
    await mkdir(building);
    await copyFile(path.join(out, name), path.join(building, name));
    if (existsSync(deb)) await rm(building, { recursive: true, force: true });
    else {
      await rm(dir, { recursive: true, force: true });
      await rename(building, dir);
    }
  } finally {
    await rm(source, { recursive: true, force: true });
  }
  process.stderr.write(`built ${deb} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return { commit, version, deb };
}
