// Where the hub's latest package update stands, and its words: the outcome `status`, the health
// and `fleet` carry, and what each says of it. Plain data and text, without zod, so that
// `panic-pair status` loads it at no cost (record.ts reads and checks the file itself).

/** In the daemon's state directory; the judge writes it (outcome.ts), the daemon reads it (record.ts). */
export const UPDATE_FILE = 'update.json';

export const UPDATE_STATES = ['probation', 'kept', 'rolled-back'] as const;
export type UpdateState = (typeof UPDATE_STATES)[number];

/** The latest update's outcome: `update` in `status --json` and in `<prefix>/health`. */
export interface UpdateOutcome {
  state: UpdateState;
  /** The version on probation, kept, or rolled back from. */
  version: string;
  /** The version before it; after a rollback, the one running again. */
  previous: string;
  /** Why it was rolled back; null otherwise. */
  reason: string | null;
  /** ISO-8601: when this state was reached. */
  at: string;
}

/** A rollback: the version rolled back from, the one running again, and why. */
export type Rollback = Pick<UpdateOutcome, 'version' | 'previous' | 'reason'>;

/** `update to 0.3.2 rolled back to 0.3.1: not ready within 150 s`: the problem of a degraded hub. */
export function rollbackProblem(rollback: Rollback): string {
  const why = rollback.reason === null ? '' : `: ${rollback.reason}`;
  return `update to ${rollback.version} rolled back to ${rollback.previous}${why}`;
}

/** `status`'s line for it. */
export function updateLine(update: UpdateOutcome | null): string {
  if (update === null) return 'none recorded';
  if (update.state === 'probation') return `${update.version} on probation since ${update.at} (the version before: ${update.previous})`;
  if (update.state === 'kept') return `${update.version} kept since ${update.at} (the version before: ${update.previous})`;
  const why = update.reason === null ? '' : `: ${update.reason}`;
  return `ROLLED BACK from ${update.version} to ${update.previous} at ${update.at}${why}`;
}

/** The running version, with the one rolled back from while a rollback is the outcome: `0.3.1 (rolled back from 0.3.2)`. */
export function runningVersionWords(running: string, update: UpdateOutcome | null): string {
  return update?.state === 'rolled-back' ? `${running} (rolled back from ${update.version})` : running;
}
