import type { LinkOutcome, PairProgress, WindowReport } from './types.js';

interface Window {
  until: number;
  openedAt: number;
  jobs: Array<Promise<unknown>>;
  outcomes: LinkOutcome[];
  onOutcome(outcome: LinkOutcome): void;
  onProgress?(progress: PairProgress): void;
  close(): void;
}

// Open pairing windows (`pair --window S`). Each window reports the links started while it was
// open; a link started inside a window is seen through even when the window closes meanwhile.
export class PairingWindows {
  /** Monotonic: when windows close. */
  readonly #clock: () => number;
  /** Only stamps the report. */
  readonly #wallClock: () => number;
  readonly #open = new Set<Window>();
  /** The latest `until` of the open windows: the hot path compares one number. */
  #openUntil = 0;

  constructor(clock: () => number, wallClock: () => number) {
    this.#clock = clock;
    this.#wallClock = wallClock;
  }

  isOpen(now: number): boolean {
    return now < this.#openUntil;
  }

  /** Whether any window is still to close; false needs no clock (the hot path's usual answer). */
  get any(): boolean {
    return this.#open.size > 0;
  }

  openUntil(now: number): number | undefined {
    return this.isOpen(now) ? this.#openUntil : undefined;
  }

  /** Hands a link job started by a sighting to every window open now. */
  adopt(job: Promise<LinkOutcome>, now: number): void {
    for (const window of this.#open) {
      if (now >= window.until) continue;
      window.jobs.push(
        job.then((outcome) => {
          window.outcomes.push(outcome);
          window.onOutcome(outcome);
        }),
      );
    }
  }

  /** A link of the open windows waits out a passing failure: each window's installer sees it. */
  tell(progress: PairProgress): void {
    for (const window of this.#open) window.onProgress?.(progress);
  }

  async open(
    durationMs: number,
    options: { signal: AbortSignal; onOutcome(outcome: LinkOutcome): void; onProgress?(progress: PairProgress): void; onOpen?(): void },
  ): Promise<WindowReport> {
    const openedAt = this.#clock();
    const openedStamp = new Date(this.#wallClock()).toISOString();
    let close!: () => void;
    const closed = new Promise<void>((resolve) => (close = resolve));
    const window: Window = { until: openedAt + durationMs, openedAt, jobs: [], outcomes: [], onOutcome: options.onOutcome, close };
    if (options.onProgress) window.onProgress = options.onProgress;
    this.#open.add(window);
    this.#recompute();
    // Only now is it open: whoever asked may tell the installer to press buttons.
    options.onOpen?.();
    const timer = setTimeout(close, durationMs);
    const onAbort = (): void => close();
    options.signal.addEventListener('abort', onAbort, { once: true });
    await closed;
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    this.#open.delete(window);
    this.#recompute();
    const closedStamp = new Date(this.#wallClock()).toISOString();
    // Jobs adopted after this point are impossible: the window is out of the set.
    await Promise.allSettled(window.jobs);
    return { openedAt: openedStamp, closedAt: closedStamp, outcomes: window.outcomes };
  }

  closeAll(): void {
    for (const window of this.#open) window.close();
  }

  #recompute(): void {
    let until = 0;
    for (const window of this.#open) until = Math.max(until, window.until);
    this.#openUntil = until;
  }
}
