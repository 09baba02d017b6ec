// The installed version as a package again, from what dpkg itself recorded: its file list, its
// maintainer scripts, its control fields. apt's cache is cleaned and the repository may be gone by
// the time a rollback needs it; the hub's own disk is not.
//
// Conffiles go in as the package shipped them (a pristine copy the package carries under
// PRISTINE), never as the admin changed them: dpkg would otherwise take the admin's text for the
// package's own, and a later upgrade would replace it without asking. The live files stay as they
// are, since the rollback installs with --force-confold.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE } from './system-facts.js';

/** Where a package keeps its conffiles as it shipped them: usr/lib/panic-pair/update/conffiles/etc/... */
export const PRISTINE = '/usr/lib/panic-pair/update/conffiles';
const INFO = '/var/lib/dpkg/info';
const SCRIPTS = ['preinst', 'postinst', 'prerm', 'postrm'];
/** Fields of `dpkg-query -s` that are dpkg's bookkeeping, not the package's control file. */
const BOOKKEEPING = new Set(['Status', 'Conffiles', 'Config-Version']);

/** Rebuilds the installed package into `target` (replaced whole); returns its version. */
export function repackInstalled(target: string): string {
  const work = mkdtempSync(path.join(path.dirname(target), '.repack-'));
  try {
    const stage = path.join(work, 'root');
    mkdirSync(stage);
    const conffiles = readLines(path.join(INFO, `${PACKAGE}.conffiles`));
    for (const file of execFileSync('dpkg-query', ['-L', PACKAGE], { encoding: 'utf8' }).split('\n')) {
      if (file === '' || file === '/.') continue;
      copyInto(stage, file, conffiles.includes(file) ? pristineOf(file) : file);
    }
    const control = path.join(stage, 'DEBIAN');
    mkdirSync(control, { mode: 0o755 });
    const fields = controlFields(execFileSync('dpkg-query', ['-s', PACKAGE], { encoding: 'utf8' }));
    writeFileSync(path.join(control, 'control'), fields);
    for (const script of SCRIPTS) {
      const from = path.join(INFO, `${PACKAGE}.${script}`);
      if (existsSync(from)) {
        copyFileSync(from, path.join(control, script));
        chmodSync(path.join(control, script), 0o755);
      }
    }
    if (conffiles.length > 0) writeFileSync(path.join(control, 'conffiles'), `${conffiles.join('\n')}\n`);
    const sums = path.join(INFO, `${PACKAGE}.md5sums`);
    if (existsSync(sums)) copyFileSync(sums, path.join(control, 'md5sums'));
    // gzip at its fastest: on a Raspberry Pi, xz would take minutes of the upgrade.
    const built = path.join(work, 'package.deb');
    execFileSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z1', '--build', stage, built], { stdio: ['ignore', 'ignore', 'pipe'] });
    renameSync(built, target);
    return /^Version: (.*)$/m.exec(fields)?.[1] ?? '';
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function copyInto(stage: string, file: string, from: string): void {
  const into = path.join(stage, file);
  const stats = lstatSync(from, { throwIfNoEntry: false });
  if (stats === undefined) throw new Error(`${from}, installed by ${PACKAGE}, is missing: the version before cannot be rebuilt`);
  if (stats.isDirectory()) {
    mkdirSync(into, { recursive: true });
    chmodSync(into, stats.mode & 0o7777);
    return;
  }
  mkdirSync(path.dirname(into), { recursive: true });
  if (stats.isSymbolicLink()) symlinkSync(readlinkSync(from), into);
  else {
    copyFileSync(from, into);
    chmodSync(into, stats.mode & 0o7777);
  }
}

/** A conffile as the package shipped it; the live file where the package carried no copy. */
function pristineOf(file: string): string {
  const pristine = path.join(PRISTINE, file);
  return existsSync(pristine) ? pristine : file;
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').map((line) => line.trim()).filter((line) => line !== '');
  } catch {
    return [];
  }
}

/** The control file from `dpkg-query -s`: every field but dpkg's bookkeeping, continuation lines kept with theirs. */
export function controlFields(status: string): string {
  const kept: string[] = [];
  let keeping = false;
  for (const line of status.split('\n')) {
    if (line === '') continue;
    if (/^\s/.test(line)) {
      if (keeping) kept.push(line);
      continue;
    }
    keeping = !BOOKKEEPING.has(line.slice(0, line.indexOf(':')));
    if (keeping) kept.push(line);
  }
  return `${kept.join('\n')}\n`;
}
