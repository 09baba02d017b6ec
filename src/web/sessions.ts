// Sessions of the installer's page: a random id in an HttpOnly cookie, nothing else on the
// browser's side. Idle time runs on the monotonic clock (a hub's wall clock jumps at boot).
// Kept in the state dir (hashes of the ids, never the ids) so that a phone stays signed in across
// a restart of the daemon and reconnects by itself; a restored session's idle time starts again.
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { monotonicNow, type MonotonicClock } from '../clock.js';
import { writeFileDurably } from '../store/durable-write.js';

export const SESSION_COOKIE = 'panic_pair_session';
export const SESSION_IDLE_MS = 30 * 60_000;
/** A hub has one installer at a time; a few phones and tabs at most. The oldest goes first. */
const MAX_SESSIONS = 16;

export class Sessions {
  readonly #lastUsed = new Map<string, number>();
  readonly #clock: MonotonicClock;
  readonly #idleMs: number;
  readonly #file: string | undefined;
  readonly #onSaveError: (error: unknown) => void;
  #saving: Promise<void> = Promise.resolve();

  constructor(options: { clock?: MonotonicClock; idleMs?: number; file?: string; onSaveError?: (error: unknown) => void } = {}) {
    this.#clock = options.clock ?? monotonicNow;
    this.#idleMs = options.idleMs ?? SESSION_IDLE_MS;
    this.#file = options.file;
    this.#onSaveError = options.onSaveError ?? (() => undefined);
  }

  /** Takes back the sessions an earlier run saved; a missing or unreadable file means none. */
  async restore(): Promise<void> {
    if (this.#file === undefined) return;
    try {
      const saved: unknown = JSON.parse(await readFile(this.#file, 'utf8'));
      const hashes = (saved as { sessions?: unknown } | null)?.sessions;
      if (!Array.isArray(hashes)) return;
      const now = this.#clock();
      for (const hash of hashes.slice(-MAX_SESSIONS)) if (typeof hash === 'string') this.#lastUsed.set(hash, now);
    } catch {
      // First start, or a damaged file: everyone signs in again, nothing else is lost.
    }
  }

  open(): string {
    const id = randomBytes(32).toString('base64url');
    if (this.#lastUsed.size >= MAX_SESSIONS) {
      const oldest = this.#lastUsed.keys().next().value;
      if (oldest !== undefined) this.#lastUsed.delete(oldest);
    }
    this.#lastUsed.set(hashOf(id), this.#clock());
    this.#save();
    return id;
  }

  /** The request's session id when it is live; using it counts as activity. */
  touch(request: IncomingMessage): string | undefined {
    const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (cookie === undefined) return undefined;
    const id = hashOf(cookie);
    const last = this.#lastUsed.get(id);
    if (last === undefined) return undefined;
    const now = this.#clock();
    if (now - last > this.#idleMs) {
      this.#lastUsed.delete(id);
      this.#save();
      return undefined;
    }
    // Re-inserted so the map stays in order of last use.
    this.#lastUsed.delete(id);
    this.#lastUsed.set(id, now);
    return id;
  }

  /** Whether a session `touch` returned is still live, without counting as activity (the live channel). */
  isLive(id: string): boolean {
    const last = this.#lastUsed.get(id);
    return last !== undefined && this.#clock() - last <= this.#idleMs;
  }

  /** Ends the session `touch` returned. */
  close(id: string): void {
    this.#lastUsed.delete(id);
    this.#save();
  }

  /** Written only at sign-in and sign-out (an SD card wears), one write after another. */
  #save(): void {
    const file = this.#file;
    if (file === undefined) return;
    const text = `${JSON.stringify({ sessions: [...this.#lastUsed.keys()] })}\n`;
    this.#saving = this.#saving.then(() => writeFileDurably(file, text, { mode: 0o600 }).then(() => undefined, this.#onSaveError));
  }

  /** Resolves once the last change is on disk (tests, shutdown). */
  settled(): Promise<void> {
    return this.#saving;
  }
}

function hashOf(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
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
