// `update.json` in the state directory: where the latest package update stands, as the judge that
// watches each update on probation records it (written by root, atomically, mode 0644). The daemon
// only reads it, to say so in `status`, its health and Home Assistant. A file that cannot be read
// or checked is no record and a warning, never a crash: an update's words must not stop the
// buttons' supervision.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describeFsError, errnoCode } from '../store/fs-error-words.js';
import { rollbackProblem, UPDATE_FILE, UPDATE_STATES, type UpdateOutcome } from './words.js';

export { UPDATE_FILE };

/** The judge's record is a few hundred bytes; a file far larger is not one. */
export const MAX_UPDATE_FILE_BYTES = 16 * 1024;

/** Debian's version characters (epoch, upstream version, revision), at most 64 of them. */
export const DEBIAN_VERSION = /^[A-Za-z0-9.+~:-]{1,64}$/;
export const MAX_REASON_CHARACTERS = 200;

const VERSION_FORM = 'must be a Debian version: 1 to 64 of A-Z a-z 0-9 . + ~ : -';
const version = z.string({ error: VERSION_FORM }).regex(DEBIAN_VERSION, VERSION_FORM);
// One line of words: control characters (escape sequences) could drive the terminal that shows it.
const reason = z
  .string({ error: 'must be text or null' })
  .max(MAX_REASON_CHARACTERS, `must be at most ${MAX_REASON_CHARACTERS} characters`)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, 'must hold no control characters');
const at = z.iso.datetime({ offset: true, error: 'must be an ISO-8601 time' });

/**
 * The outcome `status` and the health carry, as anyone reading it (the daemon from the file, the
 * fleet from a hub's health) checks it. Unknown keys are left out.
 */
export const updateOutcomeSchema = z.object({
  state: z.enum(UPDATE_STATES, 'must be probation, kept or rolled-back'),
  version,
  previous: version,
  reason: reason.nullable(),
  at,
}) satisfies z.ZodType<UpdateOutcome>;

/** The file: the outcome, and the last rollback while no later version has been kept. */
export const updateRecordSchema = updateOutcomeSchema.extend({
  rolledBack: z.object({ version, previous: version, reason: reason.nullable(), at }).optional(),
});

export type UpdateRecord = z.output<typeof updateRecordSchema>;

/** Where a record that cannot be read is said: the daemon's logger. */
export interface UpdateWarnings {
  warn(fields: { file: string; problem: string }, message: string): void;
}

/** The record in `stateDir`; null when there is none, or (with a warning) when it cannot be read or checked. */
export function readUpdateRecord(stateDir: string, logger: UpdateWarnings): UpdateRecord | null {
  const file = join(stateDir, UPDATE_FILE);
  const reading = readRecordFile(file);
  if ('problem' in reading) {
    logger.warn({ file, problem: reading.problem }, 'the update record cannot be read; the hub says nothing of its latest update');
    return null;
  }
  return reading.record;
}

type Reading = { record: UpdateRecord | null } | { problem: string };

function readRecordFile(file: string): Reading {
  let text: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return { problem: 'not a regular file' };
    if (stat.size > MAX_UPDATE_FILE_BYTES) return { problem: `${stat.size} bytes, over the ${MAX_UPDATE_FILE_BYTES} a record may take` };
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { record: null };
    return { problem: describeFsError(error) };
  }
  return parseUpdateRecord(text);
}

/**
 * The record in `text`, or what is wrong with it. The words never quote the file: they name the
 * field and what it must be (JSON.parse's own message would show a piece of the text).
 */
export function parseUpdateRecord(text: string): { record: UpdateRecord } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'not JSON' };
  }
  const parsed = updateRecordSchema.safeParse(value);
  if (parsed.success) return { record: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
  return { problem: `${where}${issue?.message ?? 'not an update record'}` };
}

/** What `status` and the health carry of the record: its outcome, without the earlier rollback. */
export function updateOutcomeOf(record: UpdateRecord | null): UpdateOutcome | null {
  if (record === null) return null;
  const { state, version, previous, reason, at } = record;
  return { state, version, previous, reason, at };
}

/**
 * The problem that makes the hub degraded, or undefined: a rollback that stands. It stands while
 * the record says rolled-back, and while a later version is on probation after it; a later
 * version kept clears it.
 */
export function updateProblem(record: UpdateRecord | null): string | undefined {
  if (record === null || record.state === 'kept') return undefined;
  if (record.state === 'rolled-back') return rollbackProblem(record);
  return record.rolledBack === undefined ? undefined : rollbackProblem(record.rolledBack);
}
