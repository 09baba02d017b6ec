// How long each source has been working, on the monotonic clock. Silence counts against a button
// only while a source that can hear it works: time with the radio down, the broker away or a
// gateway's last will said is nobody's evidence, so a failed source never makes a button missing.
// Working time is summed, not taken from the last outage alone, so a broker that drops for a few
// seconds every few minutes does not hide a silent button for ever.

export type SourceUp = (source: string) => boolean;

interface SourceClock {
  up: boolean;
  /** When the current up period began (meaningful while up). */
  since: number;
  /** Working time before the current up period. */
  worked: number;
  /** When it last stopped working (as sampled, or as first read), or undefined: never seen down. */
  downAt: number | undefined;
}

export class SourceClocks {
  readonly #clocks = new Map<string, SourceClock>();
  readonly #isUp: SourceUp;

  constructor(isUp: SourceUp) {
    this.#isUp = isUp;
  }

  /** Reads every known source's state at `now`; returns the sources whose state changed. */
  sample(now: number): string[] {
    const changed: string[] = [];
    for (const [source, clock] of this.#clocks) {
      const up = this.#isUp(source);
      if (up === clock.up) continue;
      if (clock.up) {
        clock.worked += now - clock.since;
        clock.downAt = now;
      } else clock.since = now;
      clock.up = up;
      changed.push(source);
    }
    return changed;
  }

  /** Whether the source works, as last sampled (a source first named now is read at once). */
  up(source: string, now: number): boolean {
    return this.#clock(source, now).up;
  }

  /** Total working time of the source up to `now`, since it was first named. */
  worked(source: string, now: number): number {
    const clock = this.#clock(source, now);
    return clock.up ? clock.worked + (now - clock.since) : clock.worked;
  }

  /** A source that heard a report is working now, whatever the last sample said; returns its
   * working time then (one look-up on the hot path, not two). */
  heardFrom(source: string, now: number): number {
    const clock = this.#clock(source, now);
    if (!clock.up) {
      clock.up = true;
      clock.since = now;
    }
    return clock.worked + (now - clock.since);
  }

  /** Whether the source was down at any time after `since` (as sampled): a gap between two
   * reports that spans it says nothing of the button's own interval. */
  downAfter(source: string, since: number, now: number): boolean {
    const clock = this.#clock(source, now);
    return clock.downAt !== undefined && clock.downAt >= since;
  }

  sources(): string[] {
    return [...this.#clocks.keys()];
  }

  #clock(source: string, now: number): SourceClock {
    let clock = this.#clocks.get(source);
    if (clock === undefined) {
      const up = this.#isUp(source);
      clock = { up, since: now, worked: 0, downAt: up ? undefined : now };
      this.#clocks.set(source, clock);
    }
    return clock;
  }
}
