import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './binary.js';
import { oneBuildAtATime, packagesFolder } from './checkout-package.js';

// A release with one fault put in: this tree copied (what a package build reads), one source file
// changed, and the package built by the copy's own packaging/deb/build.mjs with this checkout's
// node_modules. About 7 s on an idle machine. Built once per run for each fault and version, beside
// the run's other packages (checkout-package.ts).

export type Fault = 'exits-at-start' | 'never-ready' | 'crash-after-ready' | 'refuses-store';

interface Edit {
  file: string;
  find: string;
  replace: (found: string) => string;
}

const RUN = 'src/cli/commands/run.ts';
const READY = 'notifier.ready(systemdStatusOf(running.status()));';

/** Each fault as the one edit that puts it in. Each `find` must be in the tree: a test fails, never passes, when the code moved. */
export const FAULTS: Record<Fault, Edit> = {
  // A daemon that exits at every start, before it reads anything.
  'exits-at-start': {
    file: RUN,
    find: 'export async function runCommand(options: RunOptions): Promise<void> {',
    replace: (found) => `${found}\n  process.stderr.write('fault: exits at every start\\n');\n  process.exit(1);`,
  },
  // One that starts, serves and pings the watchdog, and never says READY=1.
  'never-ready': { file: RUN, find: READY, replace: () => '/* fault: never ready */' },
  // One that is ready, then dies a minute later, every time.
  'crash-after-ready': { file: RUN, find: READY, replace: (found) => `${found}\n  setTimeout(() => process.abort(), 60_000).unref();` },
  // One that refuses the store the version before wrote (schemaVersion 3): it reads only older ones.
  'refuses-store': {
    file: 'src/store/store-versions.ts',
    find: 'export const READABLE_SCHEMA_VERSIONS: readonly number[] = [1, 2, 3];',
    replace: () => 'export const READABLE_SCHEMA_VERSIONS: readonly number[] = [1, 2];',
  },
};

/** What packaging/deb/build.mjs reads from the tree. */
const COPIED = ['package.json', 'README.md', 'bin', 'src', 'scripts', 'systemd', 'docs', 'config', 'packaging'];

/** The amd64 package of this tree at `version`, with `fault` put in. */
export async function faultyPackage(fault: Fault, version: string): Promise<string> {
  const folder = path.join(packagesFolder(), `amd64-${version}-${fault}`);
  const deb = path.join(folder, `panic-pair_${version}_amd64.deb`);
  if (existsSync(deb)) return deb;
  return oneBuildAtATime('deb-build', async () => {
    if (existsSync(deb)) return deb;
    const tree = mkdtempSync(path.join(tmpdir(), `panic-pair-${fault}-`));
    try {
      for (const entry of COPIED) cpSync(path.join(ROOT, entry), path.join(tree, entry), { recursive: true });
      symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(tree, 'node_modules'));
      const edit = FAULTS[fault];
      const file = path.join(tree, edit.file);
      const text = readFileSync(file, 'utf8');
      if (!text.includes(edit.find)) throw new Error(`the fault ${fault} cannot be put in: ${edit.file} no longer holds ${JSON.stringify(edit.find)}`);
      writeFileSync(file, text.replace(edit.find, edit.replace(edit.find)));
      const out = path.join(tree, 'out');
      // Without a .git the build dates its changelog by SOURCE_DATE_EPOCH: this checkout's last commit.
      const epoch = (await promisify(execFile)('git', ['log', '-1', '--format=%ct'], { cwd: ROOT })).stdout.trim();
      await promisify(execFile)(process.execPath, [path.join(tree, 'packaging', 'deb', 'build.mjs'), '--arch', 'amd64', '--version', version, '--out', out], {
        cwd: tree,
        env: { ...process.env, SOURCE_DATE_EPOCH: epoch },
      });
      rmSync(folder, { recursive: true, force: true });
      renameSync(out, folder);
      rmSync(path.join(folder, 'work-amd64'), { recursive: true, force: true });
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
    return deb;
  });
}
