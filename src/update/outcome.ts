// What the judge tells the daemon, and through it status, health, fleet and Home Assistant:
// `update.json` in the daemon's state directory (record.ts reads it). Root writes it, 0644, so the
// daemon reads it and cannot pass for its own judge.
import { chownSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { replaceDurably } from './probation-file.js';
import { UPDATE_FILE, type UpdateOutcome as Outcome } from './words.js';

/** The file: the outcome, and the last rollback while no later version has been kept. */
export interface OutcomeFile extends Outcome {
  rolledBack?: Outcome;
}

export function readOutcomeFile(stateDir: string): unknown {
  try {
    return JSON.parse(readFileSync(path.join(stateDir, UPDATE_FILE), 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The rollback to keep saying while `next` is on probation: the one before, unless a version was kept since. */
export function standingRollback(before: unknown): Outcome | undefined {
  if (typeof before !== 'object' || before === null) return undefined;
  const file = before as Partial<OutcomeFile>;
  if (file.state === 'rolled-back') return outcomeOf(file);
  if (file.state === 'probation' && file.rolledBack !== undefined) return outcomeOf(file.rolledBack);
  return undefined;
}

function outcomeOf(file: Partial<Outcome>): Outcome {
  return { state: 'rolled-back', version: String(file.version), previous: String(file.previous), reason: file.reason ?? null, at: String(file.at) };
}

export function writeOutcome(stateDir: string, file: OutcomeFile): void {
  const target = path.join(stateDir, UPDATE_FILE);
  replaceDurably(target, `${JSON.stringify(file, null, 2)}\n`, 0o644);
  // Readable by the daemon in its own 0750 folder, owned by root: the folder's group is the daemon's.
  try {
    const folder = statSync(stateDir);
    chownSync(target, 0, folder.gid);
  } catch {
    // a state directory of another shape: the mode alone lets the daemon read it
  }
}

/** Puts back what update.json said before arming (dpkg undid the upgrade itself). */
export function restoreOutcome(stateDir: string, before: unknown): void {
  if (typeof before === 'object' && before !== null) writeOutcome(stateDir, before as OutcomeFile);
}
