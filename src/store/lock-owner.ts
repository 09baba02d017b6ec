// Whether the process a lock file names still owns it. Pid, boot id and start time together: a
// pid alone is reused, and after a reboot every pid in an old lock is meaningless.
import type { ProcessIdentity, ProcessProbe } from './process-identity.js';

export interface LockTakeover {
  /** The pid the stale lock named, when it could be read. */
  previousPid: number | null;
  reason: string;
}

export type LockVerdict = { live: true; pid: number } | { live: false; takeover: LockTakeover };

export async function judgeLock(raw: string, me: ProcessIdentity, probe: ProcessProbe): Promise<LockVerdict> {
  const owner = parseLockOwner(raw);
  if (owner === null) {
    return {
      live: false,
      takeover: { previousPid: null, reason: 'the lock file could not be read (a crash or power failure left it)' },
    };
  }
  const stale = (reason: string): LockVerdict => ({ live: false, takeover: { previousPid: owner.pid, reason } });
  if (owner.bootId !== null && me.bootId !== null && owner.bootId !== me.bootId) {
    return stale('it was taken before the hub last started (the boot id changed)');
  }
  if (!probe.isRunning(owner.pid)) return stale(`pid ${owner.pid} no longer runs`);
  if (owner.startTime !== null) {
    const startTime = await probe.startTime(owner.pid);
    if (startTime !== null && startTime !== owner.startTime) {
      return stale(`pid ${owner.pid} now belongs to another process (its start time differs)`);
    }
  }
  return { live: true, pid: owner.pid };
}

export function parseLockOwner(raw: string): ProcessIdentity | null {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return null;
    const { pid, bootId, startTime } = value as Record<string, unknown>;
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return null;
    return {
      pid,
      bootId: typeof bootId === 'string' ? bootId : null,
      startTime: typeof startTime === 'number' ? startTime : null,
    };
  } catch {
    return null;
  }
}
