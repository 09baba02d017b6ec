import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MAX_UPDATE_FILE_BYTES,
  parseUpdateRecord,
  readUpdateRecord,
  UPDATE_FILE,
  updateOutcomeOf,
  updateProblem,
  type UpdateRecord,
} from '../../src/update/record.js';
import { rollbackProblem, runningVersionWords, updateLine } from '../../src/update/words.js';

// update.json as the judge writes it, read by the daemon: the record, or null (absent); null and
// one warning for a file that cannot be read or checked, whose words never quote the file.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function stateDir(content?: string | Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'panic-pair-update-'));
  dirs.push(dir);
  if (content !== undefined) writeFileSync(join(dir, UPDATE_FILE), content, { mode: 0o644 });
  return dir;
}

function warnings() {
  const said: Array<{ fields: { file: string; problem: string }; message: string }> = [];
  return { said, logger: { warn: (fields: { file: string; problem: string }, message: string) => said.push({ fields, message }) } };
}

const AT = '2026-11-29T04:00:00.000Z';
const probation = { state: 'probation', version: '0.3.2', previous: '0.3.1', reason: null, at: AT } as const;
const rolledBack = { state: 'rolled-back', version: '0.3.2', previous: '0.3.1', reason: 'not ready within 150 s', at: AT } as const;
const kept = { state: 'kept', version: '0.3.3', previous: '0.3.1', reason: null, at: AT } as const;

describe('readUpdateRecord', () => {
  it('reads each state the judge writes', () => {
    for (const record of [probation, rolledBack, kept]) {
      const { said, logger } = warnings();
      expect(readUpdateRecord(stateDir(JSON.stringify(record)), logger)).toEqual(record);
      expect(said).toEqual([]);
    }
  });

  it('is null, and quiet, when there is no file', () => {
    const { said, logger } = warnings();
    expect(readUpdateRecord(stateDir(), logger)).toBeNull();
    expect(readUpdateRecord(join(stateDir(), 'no-such-dir'), logger)).toBeNull();
    expect(said).toEqual([]);
  });

  it('keeps the last rollback beside a later version on probation, and ignores keys it does not know', () => {
    const later = { ...probation, version: '0.3.3', rolledBack: { version: '0.3.2', previous: '0.3.1', reason: 'stopped 3 times without being asked', at: AT, fact: 'NRestarts=3' }, judge: 'v1' };
    const record = readUpdateRecord(stateDir(JSON.stringify(later)), warnings().logger);
    expect(record).toEqual({ ...probation, version: '0.3.3', rolledBack: { version: '0.3.2', previous: '0.3.1', reason: 'stopped 3 times without being asked', at: AT } });
  });

  it('takes Debian versions: an epoch, a revision, a tilde, a plus', () => {
    const record = { ...kept, version: '1:0.3.3~rc1+really0.3.2-1', previous: '0.3.1-2' };
    expect(readUpdateRecord(stateDir(JSON.stringify(record)), warnings().logger)).toEqual(record);
  });

  const invalid: Array<[string, string, string]> = [
    ['not JSON', '{"state": "kept", SECRET-token-abc', 'not JSON'],
    ['an array', '["SECRET-token-abc"]', 'Invalid input: expected object, received array'],
    ['an unknown state', JSON.stringify({ ...kept, state: 'SECRET-token-abc' }), 'state: must be probation, kept or rolled-back'],
    ['a version with a space', JSON.stringify({ ...kept, version: '0.3 SECRET-token-abc' }), 'version: must be a Debian version: 1 to 64 of A-Z a-z 0-9 . + ~ : -'],
    ['a version of 65 characters', JSON.stringify({ ...kept, previous: '1'.repeat(65) }), 'previous: must be a Debian version: 1 to 64 of A-Z a-z 0-9 . + ~ : -'],
    ['an empty version', JSON.stringify({ ...kept, version: '' }), 'version: must be a Debian version: 1 to 64 of A-Z a-z 0-9 . + ~ : -'],
    ['a reason of 201 characters', JSON.stringify({ ...rolledBack, reason: 'x'.repeat(201) }), 'reason: must be at most 200 characters'],
    ['a reason with an escape sequence', JSON.stringify({ ...rolledBack, reason: 'not ready\u001b[2J' }), 'reason: must hold no control characters'],
    ['a missing time', JSON.stringify({ ...kept, at: undefined }), 'at: must be an ISO-8601 time'],
    ['a time that is not one', JSON.stringify({ ...kept, at: 'yesterday SECRET-token-abc' }), 'at: must be an ISO-8601 time'],
    ['a rollback without its version', JSON.stringify({ ...probation, rolledBack: { previous: '0.3.1', reason: 'x', at: AT } }), 'rolledBack.version: must be a Debian version: 1 to 64 of A-Z a-z 0-9 . + ~ : -'],
  ];
  it.each(invalid)('is null with one warning for %s, naming the field, never the text', (_, content, problem) => {
    const dir = stateDir(content);
    const { said, logger } = warnings();
    expect(readUpdateRecord(dir, logger)).toBeNull();
    expect(said).toEqual([{ fields: { file: join(dir, UPDATE_FILE), problem }, message: expect.stringMatching(/^the update record cannot be read/) }]);
    expect(JSON.stringify(said)).not.toContain('SECRET');
  });

  it('is null with a warning for a file too large, a directory, or one it may not read', () => {
    const large = stateDir(Buffer.alloc(MAX_UPDATE_FILE_BYTES + 1, 0x20));
    const directory = stateDir();
    mkdirSync(join(directory, UPDATE_FILE));
    const { said, logger } = warnings();
    expect(readUpdateRecord(large, logger)).toBeNull();
    expect(readUpdateRecord(directory, logger)).toBeNull();
    expect(said.map((warning) => warning.fields.problem)).toEqual([`${MAX_UPDATE_FILE_BYTES + 1} bytes, over the ${MAX_UPDATE_FILE_BYTES} a record may take`, 'not a regular file']);
    if (process.getuid?.() !== 0) {
      const closed = stateDir(JSON.stringify(kept));
      chmodSync(join(closed, UPDATE_FILE), 0o000);
      expect(readUpdateRecord(closed, logger)).toBeNull();
      expect(said.at(-1)?.fields.problem).toBe('permission denied (EACCES)');
    }
  });
});

describe('parseUpdateRecord', () => {
  it('gives the record, or what is wrong with it', () => {
    expect(parseUpdateRecord(JSON.stringify(kept))).toEqual({ record: kept });
    expect(parseUpdateRecord('null')).toEqual({ problem: 'Invalid input: expected object, received null' });
  });
});

describe('updateProblem', () => {
  const record = (fields: Partial<UpdateRecord>): UpdateRecord => ({ ...probation, ...fields });

  it('says a rollback in the words of status: both versions and the reason', () => {
    expect(updateProblem(rolledBack)).toBe('update to 0.3.2 rolled back to 0.3.1: not ready within 150 s');
  });

  it('keeps saying it while a later version is on probation', () => {
    const later = record({ version: '0.3.3', rolledBack: { version: '0.3.2', previous: '0.3.1', reason: 'not ready within 150 s', at: AT } });
    expect(updateProblem(later)).toBe('update to 0.3.2 rolled back to 0.3.1: not ready within 150 s');
  });

  it('says nothing of no record, a probation, or a later version kept', () => {
    expect(updateProblem(null)).toBeUndefined();
    expect(updateProblem(probation)).toBeUndefined();
    expect(updateProblem(kept)).toBeUndefined();
    expect(updateProblem({ ...kept, rolledBack: { version: '0.3.2', previous: '0.3.1', reason: 'x', at: AT } })).toBeUndefined();
  });

  it('leaves out a reason the judge did not give', () => {
    expect(updateProblem({ ...rolledBack, reason: null })).toBe('update to 0.3.2 rolled back to 0.3.1');
  });
});

describe('the outcome and its words', () => {
  it('carries the five fields, without the earlier rollback', () => {
    const later = { ...probation, version: '0.3.3', rolledBack: { version: '0.3.2', previous: '0.3.1', reason: 'x', at: AT } };
    expect(updateOutcomeOf(later)).toEqual({ ...probation, version: '0.3.3' });
    expect(updateOutcomeOf(null)).toBeNull();
  });

  it("words status's line for each state", () => {
    expect(updateLine(null)).toBe('none recorded');
    expect(updateLine(probation)).toBe(`0.3.2 on probation since ${AT} (the version before: 0.3.1)`);
    expect(updateLine(kept)).toBe(`0.3.3 kept since ${AT} (the version before: 0.3.1)`);
    expect(updateLine(rolledBack)).toBe(`ROLLED BACK from 0.3.2 to 0.3.1 at ${AT}: not ready within 150 s`);
  });

  it("words the running version with the one rolled back from, only while that is the outcome", () => {
    expect(runningVersionWords('0.3.1', rolledBack)).toBe('0.3.1 (rolled back from 0.3.2)');
    expect(runningVersionWords('0.3.3', kept)).toBe('0.3.3');
    expect(runningVersionWords('0.3.2', probation)).toBe('0.3.2');
    expect(runningVersionWords('0.3.1', null)).toBe('0.3.1');
    expect(rollbackProblem({ version: 'a', previous: 'b', reason: 'c' })).toBe('update to a rolled back to b: c');
  });
});
