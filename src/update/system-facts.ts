// The facts the judge reads from the system: systemd's view of the daemon's unit, dpkg's view of the
// package, and whether dpkg or apt is at work. Read with the tools every Debian hub has.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import type { PackageSample, UnitSample } from './verdict.js';

export const DAEMON_UNIT = 'panic-pair.service';
export const PACKAGE = 'panic-pair';

const SHOWN = ['ActiveState', 'SubState', 'Result', 'NRestarts', 'InvocationID', 'ExecMainCode', 'ExecMainStatus', 'InactiveExitTimestampMonotonic'];

/** CLOCK_MONOTONIC in ms: the clock of systemd's *TimestampMonotonic, shared by every process of the machine. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}

/** The daemon's unit as systemd sees it now. */
export function unitSample(unit = DAEMON_UNIT): UnitSample {
  const shown = properties(unit, SHOWN);
  const number = (name: string): number => {
    const value = Number(shown[name] ?? '');
    return Number.isFinite(value) ? value : 0;
  };
  return {
    activeState: shown.ActiveState ?? '',
    subState: shown.SubState ?? '',
    result: shown.Result ?? '',
    restarts: number('NRestarts'),
    invocationId: shown.InvocationID ?? '',
    mainCode: number('ExecMainCode'),
    mainStatus: number('ExecMainStatus'),
    startedAtMs: Math.floor(number('InactiveExitTimestampMonotonic') / 1000),
    nowMs: monotonicMs(),
  };
}

/** `systemctl show` as a record; a property systemd does not know is left out. */
export function properties(unit: string, names: readonly string[]): Record<string, string> {
  const text = execFileSync('systemctl', ['show', unit, ...names.map((name) => `--property=${name}`)], { encoding: 'utf8' });
  const shown: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) shown[line.slice(0, at)] = line.slice(at + 1);
  }
  return shown;
}

/** dpkg's version and status of the package, and whether an installation is under way. */
export function packageSample(): PackageSample {
  const query = spawnSync('dpkg-query', ['-W', '-f', '${Version}\t${db:Status-Abbrev}', PACKAGE], { encoding: 'utf8' });
  const [version = '', status = ''] = query.status === 0 ? query.stdout.split('\t') : [];
  return { version, status, busy: dpkgBusy(), nowMs: monotonicMs() };
}

const DPKG_LOCKS = ['/var/lib/dpkg/lock-frontend', '/var/lib/dpkg/lock'];

/**
 * Whether apt or dpkg holds the package database's lock: the kernel's own list of file locks
 * (/proc/locks) names the locked files by inode. apt keeps the front-end lock for its whole run, also
 * between the dpkg calls it makes, so an upgrade under way is never taken for one that ended.
 */
export function dpkgBusy(): boolean {
  const inodes = new Set<string>();
  for (const file of DPKG_LOCKS) {
    try {
      inodes.add(lockKey(statSync(file)));
    } catch {
      // not there: nothing holds it
    }
  }
  if (inodes.size === 0) return false;
  let locks: string;
  try {
    locks = readFileSync('/proc/locks', 'utf8');
  } catch {
    return false;
  }
  // "1: POSIX  ADVISORY  WRITE 1234 fe:01:524301 0 EOF": the device and inode are the sixth field.
  return locks.split('\n').some((line) => {
    const fields = line.trim().split(/\s+/);
    const [major, minor, inode] = fields[5]?.split(':') ?? [];
    return inode !== undefined && inodes.has(`${parseInt(major ?? '', 16)}:${parseInt(minor ?? '', 16)}:${inode}`);
  });
}

/** A file's device and inode as /proc/locks names them (glibc's encoding of st_dev, taken apart). */
function lockKey(stats: { dev: number; ino: number }): string {
  const dev = BigInt(stats.dev);
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major}:${minor}:${stats.ino}`;
}

/** This machine's boot: a probation's monotonic times mean nothing in another. */
export function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}
