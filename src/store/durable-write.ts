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
  const fs = options.fs ?? fsPromises;
  const temporary = temporaryPathFor(target);
  let handle: DurableFileHandle | undefined;
  let step = 'creating the temporary file';
  let renamed = false;
  let fsyncs = 0;
  try {
    handle = await fs.open(temporary, 'wx', options.mode ?? 0o600);
    step = 'writing the temporary file';
    await handle.writeFile(data);
    step = 'syncing the temporary file';
    await handle.sync();
    fsyncs += 1;
    step = 'closing the temporary file';
    const closing = handle;
    handle = undefined;
    await closing.close();
    step = 'renaming it into place';
    await fs.rename(temporary, target);
    renamed = true;
    step = 'syncing the directory';
    fsyncs += await syncDirectory(fs, path.dirname(target));
  } catch (error) {
    await handle?.close().catch(() => undefined);
    if (!renamed) await fs.unlink(temporary).catch(() => undefined);
    throw writeError(target, step, renamed, error);
  }
  return { bytes: Buffer.byteLength(data), fsyncs };
}

async function syncDirectory(fs: DurableFs, directory: string): Promise<number> {
  const handle = await fs.open(directory, 'r');
  try {
    await handle.sync();
    return 1;
  } catch (error) {
    // A few file systems (some FUSE and network ones) refuse fsync on a directory with EINVAL;
    // there the rename is as durable as that file system can make it, and refusing every write
    // would stop all pairing. Every other failure (EIO above all) is reported.
    if (errnoCode(error) === 'EINVAL') return 0;
    throw error;
  } finally {
    await handle.close().catch(() => undefined);
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
