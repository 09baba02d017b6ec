// One process owns a state dir. The lock file names its owner by pid, boot id and start time, so
// that an unattended hub never refuses to start over a lock its previous life left behind.
//
// Taking over a stale lock must be safe against several starters racing: "unlink it, then create
// ours" lets a slow starter unlink the lock a faster one has just created. So the right to remove
// one particular stale lock is itself taken with an exclusive create, of a marker named after that
// lock file (its inode and content): exactly one starter wins it and removes the stale lock; the
// others back off and find the winner's live lock. A winner that dies half-way leaves a marker
// naming a dead process; the next generation of marker is then up for grabs.
import { createHash, randomUUID } from 'node:crypto';
import { link, open, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { PanicPairError } from '../errors.js';
import { describeFsError, errnoCode } from './fs-error-words.js';
import { judgeLock, type LockTakeover } from './lock-owner.js';
import { identify, isRunning, procProbe, type ProcessIdentity, type ProcessProbe } from './process-identity.js';

export type { LockTakeover } from './lock-owner.js';

export const LOCK_FILE = 'panic-pair.lock';
const MARKER_INFIX = '.takeover-';
const ROUNDS = 200;

export interface StateLockOptions {
  probe?: ProcessProbe;
  now?: () => Date;
}

interface HeldLock {
  raw: string;
  /** Names this lock file and no other: inode, change time and content. */
  key: string;
}

export class StateLock {
  readonly file: string;
  /** Set when a stale lock was taken over, for the daemon to report. */
  readonly takeover: LockTakeover | undefined;
  readonly #content: string;
  #released = false;

  private constructor(file: string, content: string, takeover: LockTakeover | undefined) {
    this.file = file;
    this.#content = content;
    this.takeover = takeover;
  }

  static async acquire(stateDir: string, options: StateLockOptions = {}): Promise<StateLock> {
    const probe = options.probe ?? procProbe();
    const me = await identify(process.pid, probe);
    const acquiredAt = (options.now ?? (() => new Date()))().toISOString();
    const content = `${JSON.stringify({ ...me, acquiredAt, nonce: randomUUID() })}\n`;
    const file = path.join(stateDir, LOCK_FILE);
    let takeover: LockTakeover | undefined;
    for (let round = 0; round < ROUNDS; round += 1) {
      if (await createExclusive(file, content)) return new StateLock(file, content, takeover);
      const held = await readLock(file);
      if (held === null) continue;
      const verdict = await judgeLock(held.raw, me, probe);
      if (verdict.live) throw lockedError(verdict.pid, stateDir);
      if (await removeStale(file, held, content, me, probe)) takeover = verdict.takeover;
      // Another starter is taking this stale lock over: give it a moment to finish.
      else await delay(5 + Math.floor(Math.random() * 10));
    }
    throw new PanicPairError('locked', `could not take ${file}: other starters keep it busy; stop them first (systemctl stop panic-pair)`);
  }

  /** Removes the lock file only if it is still ours, and the takeover markers of past locks. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    const current = await readFile(this.file, 'utf8').catch(() => null);
    if (current !== this.#content) return;
    await removeLeftovers(this.file);
    await unlink(this.file).catch(() => undefined);
  }
}

function lockedError(pid: number, stateDir: string): PanicPairError {
  return new PanicPairError(
    'locked',
    `another panic-pair (pid ${pid}) owns ${stateDir}; stop it first (systemctl stop panic-pair)`,
  );
}

/** The marker a starter creates to win the right to remove the lock now at `file`. Exported for
 * tests that play a starter dying half-way through a takeover. */
export async function takeoverMarkerFor(file: string, generation: number): Promise<string | null> {
  const held = await readLock(file);
  return held === null ? null : markerName(file, held, generation);
}

function markerName(file: string, held: HeldLock, generation: number): string {
  return `${file}${MARKER_INFIX}${held.key}-${generation}`;
}

/** Wins the right to remove this stale lock, and removes it; false when another starter has it. */
async function removeStale(file: string, held: HeldLock, content: string, me: ProcessIdentity, probe: ProcessProbe): Promise<boolean> {
  for (let generation = 0; generation < ROUNDS; generation += 1) {
    const marker = markerName(file, held, generation);
    if (await createExclusive(marker, content)) {
      // Still the lock we judged? Only a marker's winner removes it, so once this holds, nobody
      // else can change the file before our unlink.
      if ((await readLock(file))?.key !== held.key) return false;
      await unlink(file).catch((error: unknown) => {
        if (errnoCode(error) !== 'ENOENT') throw storeError(`cannot remove the stale lock ${file}`, error);
      });
      return true;
    }
    const holder = await readLock(marker);
    if (holder === null) return false;
    if ((await judgeLock(holder.raw, me, probe)).live) return false;
  }
  return false;
}

// The lock appears with its whole content at once: written to a file of our own, then hard-linked
// to the lock's name, which fails with EEXIST exactly like an O_EXCL create. A plain 'wx' create
// would leave the lock empty for a moment, and a racing starter could not tell a lock being written
// from one a power failure left empty, which must be taken over.
async function createExclusive(file: string, content: string): Promise<boolean> {
  const own = `${file}.${process.pid}.${randomUUID()}`;
  try {
    await writeFile(own, content, { flag: 'wx', mode: 0o600 });
    try {
      await link(own, file);
      return true;
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') return false;
      if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(errnoCode(error) ?? '')) throw error;
      // A file system without hard links: the O_EXCL create itself.
      await writeFile(file, content, { flag: 'wx', mode: 0o600 });
      return true;
    }
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw storeError(`cannot create the lock ${file}`, error);
  } finally {
    await unlink(own).catch(() => undefined);
  }
}

async function readLock(file: string): Promise<HeldLock | null> {
  try {
    const handle = await open(file, 'r');
    try {
      const info = await handle.stat({ bigint: true });
      const raw = await handle.readFile('utf8');
      const key = createHash('sha256').update(`${info.ino}:${info.ctimeNs}:${raw}`).digest('hex').slice(0, 16);
      return { raw, key };
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw storeError(`cannot read the lock ${file}`, error);
  }
}

/** Takeover markers, and lock drafts of starters that died before linking them. Only safe while
 * we hold the lock: then no starter can still be taking over any lock these belong to. */
async function removeLeftovers(file: string): Promise<void> {
  const base = path.basename(file);
  const names = await readdir(path.dirname(file)).catch(() => [] as string[]);
  const leftovers = names.filter((name) => {
    if (name.startsWith(`${base}${MARKER_INFIX}`)) return true;
    const draftPid = /^\.(\d+)\./.exec(name.slice(base.length))?.[1];
    return name.startsWith(base) && draftPid !== undefined && !isRunning(Number(draftPid));
  });
  await Promise.all(leftovers.map((name) => unlink(path.join(path.dirname(file), name)).catch(() => undefined)));
}

function storeError(what: string, cause: unknown): PanicPairError {
  return new PanicPairError('store', `${what}: ${describeFsError(cause)}`, { cause });
}
