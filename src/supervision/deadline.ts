// A linked button's deadline: the profile's supervisionSeconds when set,
// else learned from the button's own reports, as habluetooth learns an advertising interval, and
// always between the floor and PANIC_PAIR_SUPERVISION_MAX_SECONDS.

/** The floor: never a deadline shorter than a minute. */
export const DEADLINE_FLOOR_MS = 60_000;
/** Reports closer than this are one report heard again (duplicates, several sources hearing the
 * same advertisement): they are no interval, and a 1 Hz button would otherwise learn 20 ms. */
export const GAP_RESOLUTION_MS = 1_000;
/** The gaps remembered: habluetooth's 16, so an interval that changes is learned again soon. */
export const LEARNED_GAPS = 16;
/** Gaps needed before a learned deadline replaces the ceiling: one gap alone may be a fluke. */
export const LEARN_MIN_GAPS = 4;
/** Twice the longest recent gap: a button may miss one report (radio noise, a busy gateway)
 * without being called missing. Plus a minute of margin for the sweep and the sources' own lag. */
export const GAP_FACTOR = 2;
export const GAP_MARGIN_MS = 60_000;

/** The longest of the recent gaps between a button's reports, in a fixed ring. */
export class IntervalLearner {
  readonly #gaps = new Float64Array(LEARNED_GAPS);
  #count = 0;
  #next = 0;
  #previous: number | undefined;

  /** A report at the monotonic instant `at`: cheap enough for every advertisement. `learn` false:
   * the gap it ends is no interval of the button's (it ends a `missing` episode, or spans a
   * source's outage) and is not remembered, so an outage never stretches the deadline. */
  report(at: number, learn = true): void {
    const previous = this.#previous;
    this.#previous = at;
    if (previous === undefined || !learn) return;
    const gap = at - previous;
    if (gap < GAP_RESOLUTION_MS) return;
    this.#gaps[this.#next] = gap;
    this.#next = (this.#next + 1) % LEARNED_GAPS;
    if (this.#count < LEARNED_GAPS) this.#count++;
  }

  /** The instant of the previous report, when there was one in this run. */
  previous(): number | undefined {
    return this.#previous;
  }

  /** The longest recent gap, or undefined until enough were seen. */
  longestGap(): number | undefined {
    if (this.#count < LEARN_MIN_GAPS) return undefined;
    let longest = 0;
    for (let i = 0; i < this.#count; i++) longest = Math.max(longest, this.#gaps[i]!);
    return longest;
  }
}

export interface DeadlineInputs {
  /** The profile's supervisionSeconds, when it gives one. */
  profileSeconds?: number;
  /** From IntervalLearner.longestGap(). */
  longestGapMs?: number;
  /** The deadline learned before a restart, until this run has learned its own. */
  savedMs?: number;
  /** PANIC_PAIR_SUPERVISION_MAX_SECONDS in ms. */
  ceilingMs: number;
}

/** The deadline in ms, and whether it was learned (learned ones are saved across restarts). */
export function deadlineOf(inputs: DeadlineInputs): { ms: number; learned: boolean } {
  const bound = (ms: number): number => Math.min(inputs.ceilingMs, Math.max(DEADLINE_FLOOR_MS, ms));
  if (inputs.profileSeconds !== undefined) return { ms: bound(inputs.profileSeconds * 1000), learned: false };
  if (inputs.longestGapMs !== undefined) return { ms: bound(inputs.longestGapMs * GAP_FACTOR + GAP_MARGIN_MS), learned: true };
  if (inputs.savedMs !== undefined) return { ms: bound(inputs.savedMs), learned: true };
  // Nothing learned yet: the ceiling, so a button is never called missing on a guess.
  return { ms: inputs.ceilingMs, learned: false };
}
