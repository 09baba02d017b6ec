import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { findLibraryFile } from './installed.js';

// A process's wall clock moved at run time with libfaketime (Debian: faketime), its monotonic
// clock left alone: what a Raspberry Pi sees when NTP sets a stale clock. The offset file is read
// at every call (FAKETIME_NO_CACHE), so writing it moves the running process's clock at once.

/** libfaketime.so.1 where Debian puts it (/usr/lib/<multiarch>/faketime/), or undefined. */
export function findLibfaketime(): string | undefined {
  return findLibraryFile(path.join('faketime', 'libfaketime.so.1'));
}

export const NO_FAKETIME = 'libfaketime is not installed (Debian package faketime): the wall clock cannot be moved';

export interface FakeWallClock {
  /** The environment that puts a process under this clock. */
  env: Record<string, string>;
  /** libfaketime's spec: '+0', '-1d', '+1d', or '@1970-01-02 00:00:00' (an absolute start that runs on). */
  set(spec: string): void;
}

export function fakeWallClock(library: string, dir: string, initial = '+0'): FakeWallClock {
  const file = path.join(dir, 'faketime');
  const set = (spec: string): void => writeFileSync(file, `${spec}\n`);
  set(initial);
  return {
    env: { LD_PRELOAD: library, FAKETIME_TIMESTAMP_FILE: file, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1' },
    set,
  };
}
