// Checking the installer code: in constant time, and slowed for an address that keeps guessing.
// The code itself is never logged, echoed or kept anywhere but in its Secret.
import { createHash, timingSafeEqual } from 'node:crypto';
import { monotonicNow, type MonotonicClock } from '../clock.js';
import type { Secret } from '../config/secret.js';

export const MAX_WRONG_CODES = 5;
export const BLOCK_MS = 60_000;
/** Addresses remembered at once; beyond it the oldest is forgotten (a flood cannot grow memory). */
const MAX_ADDRESSES = 1024;

export type SignInVerdict = 'accepted' | 'wrong' | 'blocked';

interface Guesses {
  wrong: number;
  blockedUntil: number;
}

export class SignInGate {
  readonly #digest: Buffer;
  readonly #clock: MonotonicClock;
  readonly #guesses = new Map<string, Guesses>();

  constructor(code: Secret, clock: MonotonicClock = monotonicNow) {
    this.#digest = digest(code.reveal());
    this.#clock = clock;
  }

  /** After MAX_WRONG_CODES wrong codes, every attempt from the address is blocked, the right code included. */
  attempt(address: string, code: string): SignInVerdict {
    const now = this.#clock();
    const guesses = this.#guesses.get(address) ?? { wrong: 0, blockedUntil: 0 };
    if (guesses.blockedUntil > now) return 'blocked';
    // Hashing both sides first gives equal lengths, so timingSafeEqual never leaks the length.
    if (timingSafeEqual(digest(code), this.#digest)) {
      this.#guesses.delete(address);
      return 'accepted';
    }
    guesses.wrong++;
    if (guesses.wrong >= MAX_WRONG_CODES) {
      guesses.wrong = 0;
      guesses.blockedUntil = now + BLOCK_MS;
    }
    this.#remember(address, guesses);
    return 'wrong';
  }

  #remember(address: string, guesses: Guesses): void {
    this.#guesses.delete(address);
    if (this.#guesses.size >= MAX_ADDRESSES) {
      const oldest = this.#guesses.keys().next().value;
      if (oldest !== undefined) this.#guesses.delete(oldest);
    }
    this.#guesses.set(address, guesses);
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
