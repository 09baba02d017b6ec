// Who a process is, well enough to tell a live lock holder from a stale lock: a pid alone is not
// enough, because pids are reused, and after a reboot the same pid may well belong to anyone.
import { readFile } from 'node:fs/promises';
import { errnoCode } from './fs-error-words.js';

export interface ProcessIdentity {
  pid: number;
  /** /proc/sys/kernel/random/boot_id; null where /proc is missing. */
  bootId: string | null;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot); null where /proc is missing. */
  startTime: number | null;
}

export interface ProcessProbe {
  bootId(): Promise<string | null>;
  startTime(pid: number): Promise<number | null>;
  isRunning(pid: number): boolean;
}

export function procProbe(procRoot = '/proc'): ProcessProbe {
  return {
    async bootId() {
      const text = await readOptional(`${procRoot}/sys/kernel/random/boot_id`);
      const id = text?.trim();
      return id ? id : null;
    },
    async startTime(pid) {
      if (!isPlausiblePid(pid)) return null;
      const text = await readOptional(`${procRoot}/${pid}/stat`);
      return text === null ? null : startTimeFromStat(text);
    },
    isRunning,
  };
}

export async function identify(pid: number, probe: ProcessProbe): Promise<ProcessIdentity> {
  return { pid, bootId: await probe.bootId(), startTime: await probe.startTime(pid) };
}

/** Field 22; counted after the command name, which is in parentheses and may hold spaces. */
export function startTimeFromStat(stat: string): number | null {
  const end = stat.lastIndexOf(')');
  if (end < 0) return null;
  const fields = stat.slice(end + 1).trim().split(/\s+/);
  const value = Number(fields[22 - 3]);
  return Number.isSafeInteger(value) ? value : null;
}

export function isRunning(pid: number): boolean {
  // kill(0) and kill(-1) address process groups: never probe anything but a real pid.
  if (!isPlausiblePid(pid)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return errnoCode(error) === 'EPERM';
  }
}

function isPlausiblePid(pid: number): boolean {
  return Number.isSafeInteger(pid) && pid > 0;
}

async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}
