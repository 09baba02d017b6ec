import type { Secret } from '../config/secret.js';
import { readToken, type TokenSource } from '../config/token.js';

// The API token the next request uses. Read once at start and again on SIGHUP, so a token file
// rotated in place is picked up without a restart. A systemd credential is the copy systemd made
// when the service started: a new one takes a restart. A failed re-read keeps the token in use
// and says why.
export class TokenHolder {
  readonly #source: TokenSource | undefined;
  #token: Secret | undefined;

  constructor(source: TokenSource | undefined) {
    this.#source = source;
    this.#token = source === undefined ? undefined : readToken(source);
  }

  current(): Secret | undefined {
    return this.#token;
  }

  /** Reads the token again; throws (keeping the old one) when it cannot. */
  reload(): void {
    if (this.#source === undefined) return;
    this.#token = readToken(this.#source);
  }
}
