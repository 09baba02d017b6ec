// An atomic, durable replacement of one file, in the four steps that survive a kill -9 or a power
// failure at any instant: write a temporary file beside the target, fsync it, rename it over the
// target, fsync the directory so the rename itself is on disk.
//
// Written by hand rather than with write-file-atomic, for three reasons:
// - it issues a single write() and ignores a short one, so a disk that fills up part-way through
//   would get a truncated file fsynced and renamed over the last good store;
// - it cannot fsync the directory, the fourth step;
// - it reaches for the global `fs`, so failing storage cannot be injected in tests.
import * as fsPromises from 'node:fs/promises';
import path from 'node:path';
import { PanicPairError } from '../errors.js';
import { describeFsError, errnoCode } from './fs-error-words.js';

export interface DurableFileHandle {
  /** Writes all of `data`, looping over short writes. */
  writeFile(data: string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The part of `node:fs/promises` a durable write uses; tests pass one that fails on purpose. */
export interface DurableFs {
  open(file: string, flags: string, mode?: number): Promise<DurableFileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
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
  const fs = options.fs ?? fsPromises;
  const temporary = temporaryPathFor(target);
  const creating = settled(fs.open(temporary, 'wx', options.mode ?? 0o600));
  const opening = settled(fs.open(path.dirname(target), 'r'));
  const closeDirectory = async (): Promise<void> => {
    const directory = await opening;
    if (directory.ok) await directory.value.close().catch(() => undefined);
  };
  let used = false;
  const use = (): void => {
    if (used) throw new Error('a durable write is finished or abandoned once');
    used = true;
  };

  return {
    async finish(data) {
      use();
      let handle: DurableFileHandle | undefined;
      let step = 'creating the temporary file';
      let renamed = false;
      let fsyncs = 0;
      try {
        handle = unwrap(await creating);
        step = 'writing the temporary file';
        await handle.writeFile(data);
        step = 'syncing the temporary file';
        await handle.sync();
        fsyncs += 1;
        // Synced, the descriptor has nothing left to lose: it closes alongside the rename, and a
        // failure to close it cannot undo what fsync already put on disk.
        const closing = handle.close().catch(() => undefined);
        handle = undefined;
        step = 'renaming it into place';
        await Promise.all([fs.rename(temporary, target), closing]);
        renamed = true;
        step = 'syncing the directory';
        fsyncs += await syncDirectory(unwrap(await opening));
      } catch (error) {
        await handle?.close().catch(() => undefined);
        if (!renamed) await fs.unlink(temporary).catch(() => undefined);
        throw writeError(target, step, renamed, error);
      } finally {
        void closeDirectory();
      }
      return { bytes: Buffer.byteLength(data), fsyncs };
    },
    async abandon() {
      use();
      const created = await creating;
      if (created.ok) {
        await created.value.close().catch(() => undefined);
        await fs.unlink(temporary).catch(() => undefined);
      }
      await closeDirectory();
    },
  };
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** The outcome of an operation started ahead of its use, so that a failure waits to be reported there. */
function settled<T>(operation: Promise<T>): Promise<Settled<T>> {
  return operation.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function unwrap<T>(outcome: Settled<T>): T {
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

async function syncDirectory(directory: DurableFileHandle): Promise<number> {
  try {
    await directory.sync();
    return 1;
  } catch (error) {
    // A few file systems (some FUSE and network ones) refuse fsync on a directory with EINVAL;
    // there the rename is as durable as that file system can make it, and refusing every write
    // would stop all pairing. Every other failure (EIO above all) is reported.
    if (errnoCode(error) === 'EINVAL') return 0;
    throw error;
  }
}

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
