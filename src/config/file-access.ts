// Reading the small files configuration points at (the config file, the token), refusing them
// when their mode lets others read or change them, as ssh refuses a loose key. The mode is checked
// on the opened descriptor, so the file checked is the file read.
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { PanicPairError } from '../errors.js';

/**
 * A guarded file refused. `problem` says what is wrong (`<label> <path> <what>`), `fix` the command
 * that fixes it when there is one; the message joins them once, and `check` shows them apart.
 */
export class GuardedFileError extends PanicPairError {
  readonly problem: string;
  readonly fix: string | undefined;

  constructor(problem: string, fix: string | undefined, options?: { cause?: unknown }) {
    super('config', fix === undefined ? problem : `${problem}: ${fix}`, options);
    this.problem = problem;
    this.fix = fix;
  }
}

export interface ModeGuard {
  /** Permission bits that must all be clear. */
  readonly forbidden: number;
  /** The command that fixes it. */
  readonly fix: string;
}

/**
 * The file's text. `label` names the setting the path came from (e.g. PANIC_PAIR_API_TOKEN_FILE);
 * every error message is `<label> <path> <what is wrong>`, and never quotes the content.
 */
export function readGuardedFile(path: string, label: string, guard?: ModeGuard, maxBytes = 1 << 20): string {
  const fail = (what: string, cause?: unknown, fix?: string): GuardedFileError =>
    new GuardedFileError(`${label} ${path} ${what}`, fix, cause === undefined ? undefined : { cause });
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw fail(openProblem(error), error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw fail('is not a regular file');
    if (guard && (stat.mode & guard.forbidden) !== 0) throw fail(looseness(stat.mode, guard.forbidden), undefined, guard.fix);
    if (stat.size > maxBytes) throw fail(`is larger than ${maxBytes} bytes; is it the right file?`);
    return readFileSync(fd, 'utf8');
  } catch (error) {
    if (error instanceof PanicPairError) throw error;
    throw fail(`cannot be read (${codeOf(error)})`, error);
  } finally {
    closeSync(fd);
  }
}

function openProblem(error: unknown): string {
  switch (codeOf(error)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read by this user (permission denied)';
    default:
      return `cannot be opened (${codeOf(error)})`;
  }
}

export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown error';
}

/** "is readable by group or others (mode 0644)" and the like, from the file's mode and the bits refused. */
export function looseness(mode: number, forbidden: number): string {
  const loose = mode & forbidden;
  const readable = (loose & 0o044) !== 0;
  const writable = (loose & 0o022) !== 0;
  const what = readable && writable ? 'readable and writable' : readable ? 'readable' : 'writable';
  return `is ${what} by group or others (mode ${(mode & 0o777).toString(8).padStart(4, '0')})`;
}
