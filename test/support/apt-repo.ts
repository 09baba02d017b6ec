import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './binary.js';

// What the repository suites share: a throw-away signing key in a GNUPGHOME of its own, and
// `npm run apt-repo` run with it (packaging/apt/build.mjs).

export const APT_REPO_SCRIPT = path.join(ROOT, 'packaging', 'apt', 'build.mjs');

export interface SigningKey {
  /** The GNUPGHOME that holds it. */
  home: string;
  /** Its user id's email, which --key-id takes. */
  id: string;
  /** Stops the gpg-agent gpg started for this home. */
  close(): Promise<void>;
}

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** An ed25519 signing key that never expires, made in a new GNUPGHOME `home` (under a second). */
export async function throwawayKey(home: string, name: string): Promise<SigningKey> {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const env = { ...process.env, GNUPGHOME: home };
  const id = `${name}@panic-pair.invalid`;
  await promisify(execFile)('gpg', ['--batch', '--quiet', '--passphrase', '', '--quick-gen-key', `${name} <${id}>`, 'ed25519', 'sign', 'never'], { env });
  return {
    home,
    id,
    close: () =>
      promisify(execFile)('gpgconf', ['--kill', 'gpg-agent'], { env }).then(
        () => undefined,
        () => undefined,
      ),
  };
}

/** `npm run apt-repo -- ARGS` with `key`'s GNUPGHOME; resolves with its exit code and output. */
export function aptRepo(args: readonly string[], key: Pick<SigningKey, 'home'>): Promise<ScriptRun> {
  return promisify(execFile)(process.execPath, [APT_REPO_SCRIPT, ...args], { env: { ...process.env, GNUPGHOME: key.home } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: ScriptRun) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}
