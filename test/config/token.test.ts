import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readToken, Secret, type TokenSource } from '../../src/config/index.js';
import { configError, Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

const TOKEN = 'tok-3f9a1c77e2b04d5d';

function credentialsDir(name: string, token?: string): string {
  const dir = join(scratch.dir, name);
  mkdirSync(dir);
  if (token !== undefined) scratch.file(`${name}/api-token`, `${token}\n`, 0o444); // as systemd leaves it
  return dir;
}

describe('token sources', () => {
  it('reads a token file with mode 0600, trimming the newline', () => {
    const path = scratch.file('token-600', `  ${TOKEN}\n`, 0o600);
    const config = scratch.load({ env: { PANIC_PAIR_API_TOKEN_FILE: path }, require: ['token'] });
    expect(config.token).toEqual({ kind: 'file', path });
    expect(readToken(config.token as TokenSource).reveal()).toBe(TOKEN);
  });

  it('refuses a token file others may read, with the chmod to run', () => {
    const path = scratch.file('token-644', TOKEN, 0o644);
    const error = configError(() => scratch.load({ env: { PANIC_PAIR_API_TOKEN_FILE: path }, require: ['token'] }));
    expect(error.message).toBe(`PANIC_PAIR_API_TOKEN_FILE ${path} is readable by group or others (mode 0644): chmod 600 ${path}`);
    expect(error.message).not.toContain(TOKEN);
  });

  it('refuses a token file others may write', () => {
    const path = scratch.file('token-620', TOKEN, 0o620);
    expect(configError(() => readToken({ kind: 'file', path })).message).toBe(
      `PANIC_PAIR_API_TOKEN_FILE ${path} is writable by group or others (mode 0620): chmod 600 ${path}`,
    );
  });

  it('names the setting and path of a missing or empty token file', () => {
    const missing = join(scratch.dir, 'no-token');
    expect(configError(() => scratch.load({ flags: { apiTokenFile: missing }, require: ['token'] })).message).toBe(
      `PANIC_PAIR_API_TOKEN_FILE ${missing} does not exist`,
    );
    const empty = scratch.file('token-empty', ' \n', 0o600);
    expect(configError(() => readToken({ kind: 'file', path: empty })).message).toMatch(
      new RegExp(`^PANIC_PAIR_API_TOKEN_FILE ${empty} is empty`),
    );
  });

  it('only checks the token when it is required', () => {
    const missing = join(scratch.dir, 'not-yet');
    expect(scratch.load({ env: { PANIC_PAIR_API_TOKEN_FILE: missing } }).token).toEqual({ kind: 'file', path: missing });
  });

  it('reads the systemd credential, whatever its mode', () => {
    const dir = credentialsDir('creds', TOKEN);
    const config = scratch.load({ env: { CREDENTIALS_DIRECTORY: dir }, require: ['token'] });
    expect(config.token).toEqual({ kind: 'credential', path: join(dir, 'api-token') });
    expect(readToken(config.token as TokenSource).reveal()).toBe(TOKEN);
  });

  it('takes the token from the environment as a Secret', () => {
    const config = scratch.load({ env: { PANIC_PAIR_API_TOKEN: TOKEN }, require: ['token'] });
    expect(config.token?.kind).toBe('env');
    expect(JSON.stringify(config)).not.toContain(TOKEN);
    expect(readToken(config.token as TokenSource).reveal()).toBe(TOKEN);
  });

  it('prefers the token file, then the credential, then the environment', () => {
    const file = scratch.file('token-order', 'from-file', 0o600);
    const dir = credentialsDir('creds-order', 'from-credential');
    const both = { PANIC_PAIR_API_TOKEN: 'from-env', CREDENTIALS_DIRECTORY: dir };
    const reveal = (env: NodeJS.ProcessEnv): string => readToken(scratch.load({ env }).token as TokenSource).reveal();
    expect(reveal({ ...both, PANIC_PAIR_API_TOKEN_FILE: file })).toBe('from-file');
    expect(reveal(both)).toBe('from-credential');
    expect(reveal({ PANIC_PAIR_API_TOKEN: 'from-env' })).toBe('from-env');
    // A credentials directory without api-token (other credentials only) falls through.
    expect(reveal({ PANIC_PAIR_API_TOKEN: 'from-env', CREDENTIALS_DIRECTORY: credentialsDir('creds-other') })).toBe('from-env');
  });

  it('reads the file afresh each time, so a rotated token is picked up', () => {
    const path = scratch.file('token-rotate', 'first', 0o600);
    expect(readToken({ kind: 'file', path }).reveal()).toBe('first');
    scratch.file('token-rotate', 'second', 0o600);
    expect(readToken({ kind: 'file', path }).reveal()).toBe('second');
  });
});

describe('the token never appears in an error message', () => {
  const messages = (): string[] => {
    const multiLine = scratch.file('token-lines', `${TOKEN}\n${TOKEN}\n`, 0o600);
    const spaced = scratch.file('token-space', `Bearer ${TOKEN}`, 0o600);
    const loose = scratch.file('token-loose', TOKEN, 0o640);
    return [
      configError(() => readToken({ kind: 'file', path: multiLine })),
      configError(() => readToken({ kind: 'file', path: spaced })),
      configError(() => readToken({ kind: 'file', path: loose })),
      configError(() => readToken({ kind: 'env', value: new Secret(`${TOKEN} x`) })),
      configError(() => scratch.load({ env: { PANIC_PAIR_API_TOKEN: TOKEN, PANIC_PAIR_CUSTOMER_ID: 'x' } })),
      configError(() => scratch.load({ env: { PANIC_PAIR_API_TOKEN: TOKEN }, flags: { apiToken: TOKEN } })),
    ].map((error) => `${error.message} ${String(error.cause ?? '')}`);
  };

  it('in any of the failures', () => {
    const all = messages();
    expect(all).toHaveLength(6);
    for (const message of all) expect(message).not.toContain(TOKEN);
    expect(all[0]).toMatch(/holds spaces, several lines or control characters/);
  });
});
