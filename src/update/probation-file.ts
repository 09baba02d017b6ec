// Where the judge keeps what it needs across its own restarts and the hub's: the probation under
// way, the version before as a package, and the judge itself. Root's alone (0700): the daemon, the
// party being judged, can read none of it and change none of it. Every file is replaced whole
// (written beside, fsynced, renamed, the folder fsynced), so a power cut leaves the old or the new.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { StopCount } from './verdict.js';

export const UPDATE_DIR = '/var/lib/panic-pair-update';
export const PROBATION_FILE = path.join(UPDATE_DIR, 'probation.json');
/** The version before, rebuilt from the files dpkg installed (repack.ts): going back needs no network. */
export const PREVIOUS_PACKAGE = path.join(UPDATE_DIR, 'previous.deb');
/** The judge's own code, copied here by the version being replaced before the new files land. */
export const JUDGE_FILE = path.join(UPDATE_DIR, 'judge.mjs');
export const WATCH_UNIT = 'panic-pair-probation.service';
export const WATCH_UNIT_FILE = `/etc/systemd/system/${WATCH_UNIT}`;

export interface Probation {
  /** installing: dpkg is putting the new version in; probation: it runs and is watched; rolling-back: going back. */
  phase: 'installing' | 'probation' | 'rolling-back';
  previous: string;
  next: string;
  probationSeconds: number;
  /** The daemon's state directory, where update.json is written for the daemon to read. */
  stateDir: string;
  armedAt: string;
  /** The boot the monotonic start belongs to: after a reboot the window starts again. */
  bootId?: string;
  startMs?: number;
  count?: StopCount;
  reason?: string;
  fact?: string;
  /** When the rollback began (monotonic ms, same boot), to say how long it took. */
  failedAtMs?: number;
  /** update.json as it was before arming: put back when dpkg itself undid the upgrade. */
  before?: unknown;
}

export function readProbation(file = PROBATION_FILE): Probation | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let value: Probation;
  try {
    value = JSON.parse(text) as Probation;
  } catch {
    throw new Error(`${file} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || typeof value.previous !== 'string' || typeof value.next !== 'string' || typeof value.phase !== 'string') {
    throw new Error(`${file} is not a probation the judge wrote`);
  }
  return value;
}

export function saveProbation(probation: Probation, file = PROBATION_FILE): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  replaceDurably(file, `${JSON.stringify(probation, null, 2)}\n`, 0o600);
}

/** The four steps of a durable replacement, synchronously: the judge has nothing else to do meanwhile. */
export function replaceDurably(file: string, data: string | Buffer, mode: number): void {
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  syncFolder(path.dirname(file));
}

export function syncFolder(folder: string): void {
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
