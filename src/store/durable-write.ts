// An atomic, durable replacement of one file, in the four steps that survive a kill -9 or a power
// failure at any instant: write a temporary file beside the target, fsync it, rename it over the
// target, fsync the directory so the rename itself is on disk.
//
// Written by hand rather than with write-file-atomic, for three reasons:
// - it issues a single write() and ignores a short one, so a disk that fills up part-way through
//   would get a truncated file fsynced and renamed over the last good store;
// - it cannot fsync the directory, the fourth step;
// - it reaches for the global `fs`, so failing storage cannot be injected in tests.
//
// The steps are chained with node:fs's callbacks rather than awaited on node:fs/promises' file
// handles: each step is still one call on libuv's thread pool (never a synchronous call, so a
// stalled SD card cannot freeze the daemon), without a promise and a handle's bookkeeping around
// each. Two of these writes stand between a button's announcement and its `linked` state
// (docs/reference/performance.md).
import * as nodeFs from 'node:fs';
import path from 'node:path';
import { PanicPairError } from '../errors.js';
import { describeFsError, errnoCode } from './fs-error-words.js';

type Done<T = void> = (error: NodeJS.ErrnoException | null, value: T) => void;

/** The calls of `node:fs` a durable write makes, in its callback form; tests pass one that fails on purpose. */
export interface DurableFs {
  open(file: string, flags: string, mode: number, callback: Done<number>): void;
  /** May write fewer bytes than asked (a disk filling up): the caller writes the rest. */
  write(fd: number, buffer: Buffer, offset: number, length: number, position: null, callback: Done<number>): void;
  fsync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
  close(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
  rename(from: string, to: string, callback: (error: NodeJS.ErrnoException | null) => void): void;
  unlink(file: string, callback: (error: NodeJS.ErrnoException | null) => void): void;
}

export interface DurableWriteOptions {
  /** Defaults to 0600: the store names the customer and its buttons. */
  mode?: number;
  fs?: DurableFs;
}

export interface DurableWriteResult {
  bytes: number;
  fsyncs: number;
}

/** Suffix of temporary files, so a store that opens can clear those a killed writer left behind. */
export const TEMPORARY_SUFFIX = '.tmp';

let sequence = 0;

export function temporaryPathFor(target: string): string {
  sequence += 1;
  return `${target}.${process.pid}.${sequence}${TEMPORARY_SUFFIX}`;
}

export async function writeFileDurably(
  target: string,
  data: string,
  options: DurableWriteOptions = {},
): Promise<DurableWriteResult> {
  return beginDurableWrite(target, options).finish(data);
}

/** A durable write whose temporary file is being created while its data is still being made. */
export interface DurableWrite {
  /** The four steps with `data`; rejects (kind 'store') saying which step failed. */
  finish(data: string): Promise<DurableWriteResult>;
  /** Gives the write up before any data: the temporary file is removed, the target untouched. */
  abandon(): Promise<void>;
}

/**
 * Starts creating the temporary file, and opening the directory for its fsync, at once: the
 * caller makes the data meanwhile (the store: waiting a turn for more changes, encoding). Either
 * `finish` or `abandon` must follow.
 */
export function beginDurableWrite(target: string, options: DurableWriteOptions = {}): DurableWrite {
  const fs = options.fs ?? nodeFs;
  const temporary = temporaryPathFor(target);
  const creating = opened(fs, temporary, 'wx', options.mode ?? 0o600);
  const opening = opened(fs, path.dirname(target), 'r', 0);
  let used = false;
  /** Rejects the second use, as the first's outcome stays the caller's to read. */
  const use = (): Error | undefined => {
    if (used) return new Error('a durable write is finished or abandoned once');
    used = true;
    return undefined;
  };
  const closeDirectory = (): void => opening((error, fd) => {
    if (error === null) fs.close(fd, ignore);
  });

  return {
    finish(data) {
      const reused = use();
      if (reused !== undefined) return Promise.reject(reused);
      return new Promise<DurableWriteResult>((resolve, reject) => {
        const bytes = Buffer.from(data, 'utf8');
        let step = 'creating the temporary file';
        let file: number | undefined;
        const fail = (renamed: boolean) => (error: unknown): void => {
          closeDirectory();
          const cleared = (): void => reject(writeError(target, step, renamed, error));
          if (file !== undefined) fs.close(file, ignore);
          if (renamed) cleared();
          else fs.unlink(temporary, () => cleared());
        };
        creating((createError, fd) => {
          if (createError !== null) return fail(false)(createError);
          file = fd;
          step = 'writing the temporary file';
          writeAll(fs, fd, bytes, (writeError) => {
            if (writeError !== null) return fail(false)(writeError);
            step = 'syncing the temporary file';
            fs.fsync(fd, (syncError) => {
              if (syncError !== null) return fail(false)(syncError);
              // Synced, the descriptor has nothing left to lose: it closes alongside the rename,
              // and a failure to close it cannot undo what fsync already put on disk.
              fs.close(fd, ignore);
              file = undefined;
              step = 'renaming it into place';
              fs.rename(temporary, target, (renameError) => {
                if (renameError !== null) return fail(false)(renameError);
                step = 'syncing the directory';
                opening((openError, directory) => {
                  if (openError !== null) return fail(true)(openError);
                  syncDirectory(fs, directory, (dirError, fsyncs) => {
                    if (dirError !== null) return fail(true)(dirError);
                    closeDirectory();
                    resolve({ bytes: bytes.length, fsyncs: 1 + fsyncs });
                  });
                });
              });
            });
          });
        });
      });
    },
    abandon() {
      const reused = use();
      if (reused !== undefined) return Promise.reject(reused);
      return new Promise<void>((resolve) => {
        closeDirectory();
        creating((error, fd) => {
          if (error !== null) return resolve();
          fs.close(fd, () => fs.unlink(temporary, () => resolve()));
        });
      });
    },
  };
}

/** A descriptor opened ahead of its use: the outcome waits, failure included, to be read there. */
type Opened = (callback: Done<number>) => void;

function opened(fs: DurableFs, file: string, flags: string, mode: number): Opened {
  let outcome: { error: NodeJS.ErrnoException | null; fd: number } | undefined;
  const waiting: Array<Done<number>> = [];
  const settle = (error: NodeJS.ErrnoException | null, fd: number): void => {
    outcome = { error, fd };
    for (const callback of waiting.splice(0)) callback(error, fd);
  };
  try {
    fs.open(file, flags, mode, settle);
  } catch (error) {
    // node:fs throws at once on a malformed path: a failure of this write like any other.
    settle(error as NodeJS.ErrnoException, -1);
  }
  return (callback) => {
    if (outcome === undefined) waiting.push(callback);
    else callback(outcome.error, outcome.fd);
  };
}

/** Writes all of `bytes`, going on after a short write from where it stopped. */
function writeAll(fs: DurableFs, fd: number, bytes: Buffer, done: (error: NodeJS.ErrnoException | null) => void): void {
  let offset = 0;
  const next = (): void => {
    if (offset === bytes.length) return done(null);
    fs.write(fd, bytes, offset, bytes.length - offset, null, (error, written) => {
      if (error !== null) return done(error);
      // A write that takes nothing would otherwise be asked again for ever.
      if (written === 0) return done(Object.assign(new Error('the write took no bytes'), { code: 'EIO' }));
      offset += written;
      next();
    });
  };
  next();
}

function syncDirectory(fs: DurableFs, directory: number, done: Done<number>): void {
  fs.fsync(directory, (error) => {
    if (error === null) return done(null, 1);
    // A few file systems (some FUSE and network ones) refuse fsync on a directory with EINVAL;
    // there the rename is as durable as that file system can make it, and refusing every write
    // would stop all pairing. Every other failure (EIO above all) is reported.
    if (errnoCode(error) === 'EINVAL') return done(null, 0);
    done(error, 0);
  });
}

function ignore(): void {}

function writeError(target: string, step: string, renamed: boolean, cause: unknown): PanicPairError {
  const outcome = renamed
    ? 'the new copy is in place but may not survive a power failure'
    : 'the last good copy was kept';
  return new PanicPairError(
    'store',
    `cannot write ${target}: ${describeFsError(cause)} while ${step}; ${outcome}`,
    { cause },
  );
}
