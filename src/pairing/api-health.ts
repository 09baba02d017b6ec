import { errorKindOf, messageOf } from '../errors.js';
import type { TokenState } from '../api/types.js';

// What the API's answers say about the hub's standing: is the token accepted, is the API reachable.
// Fed by every call the engine makes; read by `status`.
export class ApiHealth {
  token: TokenState;
  state: 'unknown' | 'ok' | 'failing' = 'unknown';
  lastError: string | undefined;

  constructor(hasToken: boolean) {
    this.token = hasToken ? 'unknown' : 'missing';
  }

  succeeded(): void {
    this.token = 'accepted';
    this.state = 'ok';
    this.lastError = undefined;
  }

  failed(error: unknown): void {
    const kind = errorKindOf(error);
    if (kind === 'unauthorized') {
      this.token = this.token === 'missing' ? 'missing' : 'refused';
      this.state = 'ok';
    } else if (kind === 'transient' || kind === 'invalid-reply' || kind === 'failure') {
      this.state = 'failing';
    } else {
      // 400 and 404 are answers: the API is up and took the token.
      this.token = 'accepted';
      this.state = 'ok';
    }
    this.lastError = messageOf(error);
  }
}
