// A seeded random source for the fault and fuzz tests, so that a failure can be replayed: every
// test names its seed in its failure messages, and PANIC_PAIR_TEST_SEED replaces the default.

export interface SeededRandom {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  bytes(length: number): Buffer;
  /** `length` characters drawn from `alphabet`. */
  text(alphabet: string, length: number): string;
}

/** The seed a test uses: PANIC_PAIR_TEST_SEED when set, else the test's own fixed default. */
export function testSeed(fallback: number): number {
  const given = process.env.PANIC_PAIR_TEST_SEED;
  if (given === undefined || given === '') return fallback;
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`PANIC_PAIR_TEST_SEED must be an integer, got ${given}`);
  return seed;
}

/** mulberry32: small, fast, and good enough to spread test inputs; not for anything secret. */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    seed,
    next,
    int,
    chance: (probability) => next() < probability,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)]!;
    },
    bytes(length) {
      const buffer = Buffer.alloc(length);
      for (let i = 0; i < length; i++) buffer[i] = int(0, 255);
      return buffer;
    },
    text(alphabet, length) {
      const characters = [...alphabet];
      let result = '';
      for (let i = 0; i < length; i++) result += characters[int(0, characters.length - 1)];
      return result;
    },
  };
}
