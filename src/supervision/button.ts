// One linked button under supervision: when each source last heard it, its battery, its learned
// interval, and the rule that turns these into a Supervision word.
import { deadlineOf, IntervalLearner } from './deadline.js';
import type { SourceClocks } from './source-clocks.js';
import type { Supervision } from './types.js';

export interface Hearing {
  /** Monotonic instant this source last heard the button in this run; undefined: not yet. */
  heardAt: number | undefined;
  /** The source's working clock then (or when the button was taken under supervision). */
  workedAt: number;
  /** Silence carried over from before a restart: working time the source saw before it, up to
   * the last save. Zero once heard in this run. */
  creditMs: number;
}

export interface ButtonSettings {
  ceilingMs: number;
  profileSeconds?: number;
  triggerOnly: boolean;
  /** PANIC_PAIR_SUPERVISION=off. */
  off: boolean;
}

export class SupervisedButton {
  readonly deviceId: string;
  readonly sources = new Map<string, Hearing>();
  readonly learner = new IntervalLearner();
  profile: string | undefined;
  /** `imitated` as the outputs were last told it (undefined: a button with no key). */
  toldImitated: boolean | undefined;
  /** Its BTHome reports carry the trigger-based bit. */
  triggerBased = false;
  settings: ButtonSettings;
  /** The latest report in this run (monotonic), or undefined. */
  lastAt: number | undefined;
  /** The last-heard time saved before this run (ISO), shown until the button is heard again. */
  savedLastHeard: string | undefined;
  savedDeadlineMs: number | undefined;
  battery: number | null = null;
  batteryFlaggedLow = false;
  supervision: Supervision = 'unknown';
  /** Monotonic instant `supervision` last changed: "missing for 2 h". */
  since: number;

  constructor(deviceId: string, settings: ButtonSettings, now: number) {
    this.deviceId = deviceId;
    this.settings = settings;
    this.since = now;
  }

  deadline(): { ms: number; learned: boolean } {
    return deadlineOf({
      ceilingMs: this.settings.ceilingMs,
      profileSeconds: this.settings.profileSeconds,
      longestGapMs: this.learner.longestGap(),
      savedMs: this.savedDeadlineMs,
    });
  }

  /** A source the button may be heard by, from the moment it was taken under supervision. */
  expect(source: string, clocks: SourceClocks, now: number, creditMs = 0): void {
    if (this.sources.has(source)) return;
    this.sources.set(source, { heardAt: undefined, workedAt: clocks.worked(source, now), creditMs });
  }

  /** The word for now. Sources that stopped hearing it while another hears it are let go. */
  decide(clocks: SourceClocks, now: number): Supervision {
    if (this.settings.off || this.settings.triggerOnly) return 'unsupervised';
    const deadlineMs = this.deadline().ms;
    let online = false;
    let silentWhileWorking = false;
    for (const [source, hearing] of this.sources) {
      if (!clocks.up(source, now)) continue;
      if (hearing.heardAt !== undefined && now - hearing.heardAt < deadlineMs) {
        online = true;
        continue;
      }
      const silence = clocks.worked(source, now) - hearing.workedAt + hearing.creditMs;
      if (silence >= deadlineMs) silentWhileWorking = true;
    }
    if (online) {
      // A working source that has not heard it for a whole deadline while another did is out of
      // its range: it is no evidence when that other one fails.
      if (silentWhileWorking) this.#forgetDeafSources(clocks, now, deadlineMs);
      return 'online';
    }
    return silentWhileWorking ? 'missing' : 'unknown';
  }

  #forgetDeafSources(clocks: SourceClocks, now: number, deadlineMs: number): void {
    for (const [source, hearing] of this.sources) {
      if (!clocks.up(source, now)) continue;
      const heard = hearing.heardAt !== undefined && now - hearing.heardAt < deadlineMs;
      if (!heard && clocks.worked(source, now) - hearing.workedAt + hearing.creditMs >= deadlineMs) this.sources.delete(source);
    }
  }
}
