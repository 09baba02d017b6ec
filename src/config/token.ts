// Where the bearer token comes from, and reading it. The token is read afresh on each call so the
// daemon can pick up a rotated token on SIGHUP; it is never part of an error message.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PanicPairError } from '../errors.js';
import { readGuardedFile } from './file-access.js';
import { readSecretFile } from './secret-file.js';
import { TOKEN_CREDENTIAL_NAME } from './locations.js';
import { Secret } from './secret.js';
import { SETTINGS } from './settings.js';

export type TokenSource =
  | { kind: 'file'; path: string }
  /** systemd's LoadCredential=api-token:..., in $CREDENTIALS_DIRECTORY. */
  | { kind: 'credential'; path: string }
  | { kind: 'env'; value: Secret };

const TOKEN_FILE = SETTINGS.apiTokenFile.env;
const TOKEN_ENV = SETTINGS.apiToken.env;
const CREDENTIAL_LABEL = `the systemd credential ${TOKEN_CREDENTIAL_NAME}`;
const MAX_TOKEN_BYTES = 16 * 1024;

/** PANIC_PAIR_API_TOKEN_FILE, then $CREDENTIALS_DIRECTORY/api-token when present, then PANIC_PAIR_API_TOKEN. */
export function tokenSourceOf(input: {
  tokenFile?: string | undefined;
  credentialsDirectory?: string | undefined;
  envToken?: Secret | undefined;
}): TokenSource | undefined {
  if (input.tokenFile !== undefined) return { kind: 'file', path: input.tokenFile };
  if (input.credentialsDirectory !== undefined) {
    const path = join(input.credentialsDirectory, TOKEN_CREDENTIAL_NAME);
    // The unit may load other credentials and no token; then the next source applies.
    if (existsSync(path)) return { kind: 'credential', path };
  }
  if (input.envToken !== undefined) return { kind: 'env', value: input.envToken };
  return undefined;
}

export function readToken(source: TokenSource): Secret {
  switch (source.kind) {
    case 'file': {
      // ssh refuses a private key others can read; a bearer token deserves the same.
      return checked(readSecretFile(source.path, TOKEN_FILE), `${TOKEN_FILE} ${source.path}`);
    }
    case 'credential':
      // systemd owns the credential's mode; it is readable by the service alone.
      return checked(readGuardedFile(source.path, CREDENTIAL_LABEL, undefined, MAX_TOKEN_BYTES), `${CREDENTIAL_LABEL} ${source.path}`);
    case 'env':
      return checked(source.value.reveal(), TOKEN_ENV);
  }
}

/** A short description of the source for logs and `check`, without the token. */
export function describeTokenSource(source: TokenSource): string {
  switch (source.kind) {
    case 'file':
      return `${TOKEN_FILE} ${source.path}`;
    case 'credential':
      return `${CREDENTIAL_LABEL} (${source.path})`;
    case 'env':
      return TOKEN_ENV;
  }
}

function checked(raw: string, where: string): Secret {
  const token = raw.trim();
  if (token === '') throw new PanicPairError('config', `${where} is empty; it must hold the API token`);
  // A second line or a control character would corrupt the Authorization header.
  if (/[\s\u0000-\u001f\u007f]/.test(token)) {
    throw new PanicPairError('config', `${where} holds spaces, several lines or control characters; it must hold the API token alone`);
  }
  return new Secret(token);
}
