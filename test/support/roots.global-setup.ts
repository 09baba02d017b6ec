import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheKey, cachedRoot, ROOTS_STATUS_ENV, TEST_CACHE_DIR, type RootsProgress } from './container-root.js';
import { CHECKOUT_VERSION, checkoutPackage } from './checkout-package.js';
import { kernelImage } from './kernel-image.js';
import { TEST_ROOTS, type TestRoot } from './test-roots.js';

// Before any suite, the run builds the root file systems its suites boot and that are not cached
// yet (test-roots.ts gives the order; arm64's in a lane of its own beside the others), printing how
// long each took. The suites
// that need no root run meanwhile; a container suite waits for its own root, a kernel suite for
// every root (container-root.ts), so no guest ever runs beside a build under qemu-user. Once the
// roots are there, the kernel guests' packages and images are made at the lowest priority while
// the suites that boot no kernel run, and the kernel suites only boot them. On a warm machine no
// root is built and the run is the same, only shorter. A run given file filters builds only the
// roots (and images) of the files it runs.

/** Every project of the run calls this setup, in one process: the first starts the builder. */
const STARTED = Symbol.for('panic-pair.test-roots-builder');

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const shared = globalThis as { [STARTED]?: boolean };
  if (shared[STARTED] === true) return undefined;
  shared[STARTED] = true;
  const filters = fileFilters(process.argv.slice(2));
  const wanted = TEST_ROOTS.filter((root) => isRun(root, filters) && root.unavailable() === undefined);
  const missing = wanted.filter((root) => !existsSync(path.join(TEST_CACHE_DIR, cacheKey(root.recipe), 'etc', 'os-release')));
  if (missing.length === 0) {
    const preparing = prepareKernelImages(wanted);
    return () => preparing.stop();
  }

  await mkdir(TEST_CACHE_DIR, { recursive: true, mode: 0o755 });
  const file = path.join(TEST_CACHE_DIR, `roots-progress-${process.pid}.json`);
  const progress: RootsProgress = { pid: process.pid, pending: missing.map((root) => cacheKey(root.recipe)), failed: {}, done: false };
  // Written whole and renamed into place, one write at a time: a suite never reads half of it.
  let told = Promise.resolve();
  const tell = (): Promise<void> => {
    const snapshot = JSON.stringify(progress);
    told = told.then(async () => {
      await writeFile(`${file}.new`, snapshot);
      await rename(`${file}.new`, file);
    });
    return told;
  };
  await tell();
  process.env[ROOTS_STATUS_ENV] = file;
  process.stderr.write(`building ${missing.length} test root file system(s) first: ${missing.map((root) => root.recipe.suite).join(', ')}\n`);

  const abort = new AbortController();
  const figures: string[] = [];
  const started = performance.now();
  // Two lanes: the longest build (arm64's, all under qemu-user) alone in one, the others one after
  // another in the other, so that the second core is not left idle for the arm64 root's quarter of
  // an hour once the suites that need no root are done (figures: docs/engineer/tests.md).
  const longest = missing.find((root) => root.recipe.architecture === 'arm64');
  const lanes = [longest === undefined ? [] : [longest], missing.filter((root) => root !== longest)].filter((lane) => lane.length > 0);
  const buildLane = async (lane: readonly TestRoot[]): Promise<void> => {
    for (const root of lane) {
      if (abort.signal.aborted) return;
      const key = cacheKey(root.recipe);
      const from = performance.now();
      try {
        await cachedRoot(root.recipe, { signal: abort.signal });
        figures.push(`${root.recipe.suite} ${seconds(from)} s`);
      } catch (error) {
        progress.failed[key] = `the run could not build it: ${(error as Error).message}`;
        figures.push(`${root.recipe.suite} failed after ${seconds(from)} s`);
      }
      progress.pending = progress.pending.filter((pending) => pending !== key);
      await tell();
    }
  };
  let preparing: KernelImages | undefined;
  const building = Promise.all(lanes.map(buildLane)).then(async () => {
    progress.done = true;
    await tell();
    process.stderr.write(`test roots built in ${seconds(started)} s: ${figures.join(', ')}\n`);
    if (!abort.signal.aborted) preparing = prepareKernelImages(wanted.filter((root) => progress.failed[cacheKey(root.recipe)] === undefined));
  });

  return async () => {
    abort.abort();
    await building.catch(() => undefined);
    await preparing?.stop();
    await rm(file, { force: true });
  };
}

interface KernelImages {
  /** Waits for the build under way, and starts no other. */
  stop(): Promise<void>;
}

/**
 * The kernel suites' packages and images (kernel-image.ts), made at the lowest priority while the
 * suites that boot no kernel run, amd64's first (four suites boot it): a kernel suite then only
 * boots. One that starts first makes its own at its own priority, or waits for this one's; a
 * failure here is left for that suite to meet and report.
 */
function prepareKernelImages(roots: readonly TestRoot[]): KernelImages {
  let stopped = false;
  const started = performance.now();
  const made: string[] = [];
  const run = (async () => {
    for (const root of roots.filter((each) => each.kernel)) {
      if (stopped) return;
      const architecture = root.recipe.architecture ?? 'amd64';
      const from = performance.now();
      try {
        const deb = await checkoutPackage(architecture, CHECKOUT_VERSION, { background: true });
        if (stopped) return;
        await kernelImage(await cachedRoot(root.recipe), deb, { background: true });
        made.push(`${architecture} ${seconds(from)} s`);
      } catch {
        made.push(`${architecture} failed (its suite will say why)`);
      }
    }
    if (made.length > 0) process.stderr.write(`kernel guests' images made in ${seconds(started)} s, beside the suites: ${made.join(', ')}\n`);
  })();
  return {
    async stop() {
      stopped = true;
      await run;
    },
  };
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(0);
}

function isRun(root: TestRoot, filters: readonly string[]): boolean {
  return filters.length === 0 || root.usedBy.some((file) => filters.some((filter) => file.includes(filter)));
}

/** vitest's options that take their value as the next word. */
const TAKES_A_VALUE = new Set(['--project', '--reporter', '--config', '-c', '--root', '-r', '--dir', '-t', '--testNamePattern', '--outputFile', '--maxWorkers', '--pool', '--shard', '--exclude', '--mode']);

/** The file filters of a `vitest [run] [filters...] [options]` command line. */
export function fileFilters(args: readonly string[]): string[] {
  const filters: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg.startsWith('-')) {
      if (!arg.includes('=') && TAKES_A_VALUE.has(arg)) i += 1;
      continue;
    }
    if (i === 0 && ['run', 'watch', 'dev', 'related'].includes(arg)) continue;
    filters.push(arg);
  }
  return filters;
}
