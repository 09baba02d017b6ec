import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PACKAGES_ENV } from './checkout-package.js';

// The folder this run's packages are built into (checkout-package.ts), named for every worker and
// removed when the run ends.

/** Every project of the run calls this setup, in one process: the first makes the folder. */
const STARTED = Symbol.for('panic-pair.test-packages-folder');

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const shared = globalThis as { [STARTED]?: boolean };
  if (shared[STARTED] === true) return undefined;
  shared[STARTED] = true;
  const folder = await mkdtemp(path.join(tmpdir(), 'panic-pair-packages-'));
  process.env[PACKAGES_ENV] = folder;
  return () => rm(folder, { recursive: true, force: true });
}
