// Sessions of the installer's page: a random id in an HttpOnly cookie, nothing else on the
// browser's side. Idle time runs on the monotonic clock (a hub's wall clock jumps at boot).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = 'panic_pair_session';
export const SESSION_IDLE_MS = 30 * 60_000;
/** A hub has one installer at a time; a few phones and tabs at most. The oldest goes first. */
const MAX_SESSIONS = 16;

export class Sessions {
  readonly #lastUsed = new Map<string, number>();
  readonly #clock: () => number;
  readonly #idleMs: number;

  constructor(options: { clock?: () => number; idleMs?: number } = {}) {
    this.#clock = options.clock ?? (() => performance.now());
    this.#idleMs = options.idleMs ?? SESSION_IDLE_MS;
  }

  open(): string {
    const id = randomBytes(32).toString('base64url');
    if (this.#lastUsed.size >= MAX_SESSIONS) {
      const oldest = this.#lastUsed.keys().next().value;
      if (oldest !== undefined) this.#lastUsed.delete(oldest);
    }
    this.#lastUsed.set(id, this.#clock());
    return id;
  }

  /** The request's session id when it is live; using it counts as activity. */
  touch(request: IncomingMessage): string | undefined {
    const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (id === undefined) return undefined;
    const last = this.#lastUsed.get(id);
    if (last === undefined) return undefined;
    const now = this.#clock();
    if (now - last > this.#idleMs) {
      this.#lastUsed.delete(id);
      return undefined;
    }
    // Re-inserted so the map stays in order of last use.
    this.#lastUsed.delete(id);
    this.#lastUsed.set(id, now);
    return id;
  }

  close(id: string): void {
    this.#lastUsed.delete(id);
  }
}

export function sessionCookie(id: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}
