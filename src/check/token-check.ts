import { closeSync, fstatSync, openSync } from 'node:fs';
import { readToken, type Config, type Secret, type TokenSource } from '../config/index.js';
import { codeOf, looseness } from '../config/file-access.js';
import { SECRET_FILE_FORBIDDEN_BITS, secretFileGuard } from '../config/secret-file.js';
import { messageOf } from '../errors.js';
import { fail, pass, type CheckResult } from './result.js';

/** What the unit's LoadCredential=api-token:... reads; see systemd/panic-pair.service. */
export const UNIT_TOKEN_FILE = '/etc/panic-pair/api-token';

export interface TokenCheck {
  result: CheckResult;
  /** The token, when the check passed: the API check uses it. */
  token?: Secret;
}

/**
 * The token is present and not readable by others. An installer runs `check` outside the unit,
 * where $CREDENTIALS_DIRECTORY is unset: with no other source configured, the file the unit loads
 * as its credential is checked instead, as the daemon will get it.
 */
export function checkToken(config: Config, unitTokenFile: string = UNIT_TOKEN_FILE): TokenCheck {
  const source = config.token ?? unitCredential(unitTokenFile);
  if (source === undefined) {
    return {
      result: fail(
        'token',
        `no API token: PANIC_PAIR_API_TOKEN_FILE is not set and ${unitTokenFile} (the unit's credential api-token) does not exist`,
        `write the token to ${unitTokenFile} (one line), then chmod 600 ${unitTokenFile}`,
      ),
    };
  }
  if (source.kind === 'file') {
    const problem = fileProblem(source.path);
    if (problem !== undefined) return { result: problem };
  }
  let token: Secret;
  try {
    token = readToken(source);
  } catch (error) {
    // readToken's messages name the place and never quote the content.
    return { result: fail('token', messageOf(error), `put the API token alone, on one line, in ${where(source)}`) };
  }
  const guarded = source.kind === 'env' ? '' : '; readable by its owner only';
  return { result: pass('token', `${describe(source)}${guarded}`), token };
}

function unitCredential(path: string): TokenSource | undefined {
  try {
    closeSync(openSync(path, 'r'));
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
  }
  return { kind: 'file', path };
}

/** Missing, unreadable or loose: each with its own fix (readToken's messages merge them). */
function fileProblem(path: string): CheckResult | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT') return fail('token', `token file ${path} does not exist`, `write the API token to ${path}, then chmod 600 ${path}`);
    if (code === 'EACCES' || code === 'EPERM') {
      return fail('token', `token file ${path} cannot be read by this user`, 'run the check as root: sudo panic-pair check');
    }
    return fail('token', `token file ${path} cannot be opened (${code})`, `check ${path}`);
  }
  try {
    const { mode } = fstatSync(fd);
    // The daemon's own rule and words (config/secret-file.ts), as for every secret file.
    if ((mode & SECRET_FILE_FORBIDDEN_BITS) !== 0) {
      return fail('token', `token file ${path} ${looseness(mode, SECRET_FILE_FORBIDDEN_BITS)}`, secretFileGuard(path).fix);
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function describe(source: TokenSource): string {
  switch (source.kind) {
    case 'file':
      return `token file ${source.path}`;
    case 'credential':
      return `systemd credential api-token (${source.path})`;
    case 'env':
      return 'PANIC_PAIR_API_TOKEN (for development; use a token file on a hub)';
  }
}

function where(source: TokenSource): string {
  return source.kind === 'env' ? 'PANIC_PAIR_API_TOKEN' : source.path;
}
