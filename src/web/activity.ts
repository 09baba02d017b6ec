// What the installer started from the page and how it is going: the pairings asked for (each with
// its live step) and the open pairing window (its countdown and outcomes), as states, kinds and
// numbers that the page words in the installer's language. Kept here rather than
// in a browser so that a phone that reconnects sees the same thing, and so every start is logged
// with the address it came from.
import { errorKindOf, messageOf, type ErrorKind } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { CheckName } from '../check/result.js';
import type { LinkOutcome, PairProgress, PairStep } from '../pairing/types.js';
import type { PageHandlers } from './port.js';

export interface PairingView {
  deviceId: string;
  customerId: number;
  step: PairStep | 'failed';
  /** Why it failed, by kind: the page words it in the installer's language. */
  reason?: ErrorKind;
  linkId?: number;
  alreadyLinked?: boolean;
  /** How long the page waits for the button to be pressed and linked. */
  timeoutSeconds: number;
  /** The last wait through a passing API failure (which API, ms until the next try); kept until the link ends. */
  retry?: { api: string; inMs: number } | undefined;
}

export interface OutcomeView {
  deviceId: string;
  ok: boolean;
  reason?: ErrorKind;
  linkId?: number;
}

/** A check's result without the CLI's sentences: which check, and whether it passed, was off or not run. */
export interface CheckResultView {
  name: CheckName;
  ok: boolean;
  skipped?: true;
}

export interface CheckView {
  running: boolean;
  report?: { ok: boolean; checks: CheckResultView[] };
  error?: ErrorKind;
  /** ISO-8601 of the hub's clock when it ended. */
  at?: string;
}

export interface WindowView {
  open: boolean;
  /** Asked for, not yet confirmed open by the engine (it may still refuse it): no "press" yet. */
  opening: boolean;
  customerId: number;
  /** Why the window was refused or failed (a customer not entitled, the daemon stopping). */
  error?: ErrorKind | undefined;
  /** Left of the window when the snapshot was taken. */
  remainingMs: number;
  seconds: number;
  outcomes: OutcomeView[];
  /** Buttons of this window waiting through a passing API failure, and the ms until their next try. */
  retries: Array<{ deviceId: string; api: string; inMs: number }>;
}

/** How long the page waits for a button to be pressed and linked. */
export const PAGE_PAIR_TIMEOUT_MS = 120_000;
const KEPT_PAIRINGS = 8;

export class PageActivity {
  readonly #pairings = new Map<string, PairingView>();
  #window: (Omit<WindowView, 'retries'> & { endsAt: number; retries: Map<string, { api: string; inMs: number }> }) | undefined;
  #check: CheckView | undefined;
  readonly #stop = new AbortController();

  constructor(
    private readonly handlers: PageHandlers,
    private readonly logger: Logger,
    private readonly changed: () => void,
  ) {}

  /**
   * Starts a link and returns at once; its steps reach the page through the live channel. False
   * while one for the same button is still under way: a second tap starts nothing.
   */
  pair(deviceId: string, customerId: number, address: string, key?: string): boolean {
    const running = this.#pairings.get(deviceId);
    if (running !== undefined && running.step !== 'linked' && running.step !== 'failed') return false;
    this.logger.info({ address, deviceId, customerId }, 'page: pairing asked');
    const view: PairingView = { deviceId, customerId, step: 'waiting', timeoutSeconds: PAGE_PAIR_TIMEOUT_MS / 1000 };
    this.#pairings.delete(deviceId);
    this.#pairings.set(deviceId, view);
    while (this.#pairings.size > KEPT_PAIRINGS) this.#pairings.delete(this.#pairings.keys().next().value ?? '');
    this.changed();
    // A wait leaves the step where it was (still linking) and says why and for how long.
    const onProgress = (progress: PairProgress): void => {
      if (progress.step === 'retrying') {
        if (progress.wait) view.retry = { api: progress.wait.api, inMs: progress.wait.inMs };
      } else {
        view.step = progress.step;
      }
      this.changed();
    };
    this.handlers
      .pair(deviceId, { timeoutMs: PAGE_PAIR_TIMEOUT_MS, signal: this.#stop.signal, onProgress, customerId, ...(key === undefined ? {} : { key: Buffer.from(key, 'hex') }) })
      .then((outcome) => Object.assign(view, pairingEnd(outcome), { retry: undefined }))
      .catch((error: unknown) => {
        this.logger.warn({ address, deviceId, err: messageOf(error) }, 'page: pairing failed');
        Object.assign(view, { step: 'failed', reason: errorKindOf(error), retry: undefined });
      })
      .finally(() => {
        this.logger.info({ address, deviceId, customerId, step: view.step, reason: view.reason }, 'page: pairing ended');
        this.changed();
      });
    return true;
  }

  /** Opens a window that always ends by itself; false when one from the page is already open. */
  openWindow(seconds: number, customerId: number, address: string): boolean {
    if (this.#window?.open) return false;
    this.logger.info({ address, seconds, customerId }, 'page: pairing window opened');
    const window = { open: true, opening: true, seconds, customerId, error: undefined as ErrorKind | undefined, remainingMs: seconds * 1000, endsAt: performance.now() + seconds * 1000, outcomes: [] as OutcomeView[], retries: new Map<string, { api: string; inMs: number }>() };
    this.#window = window;
    this.changed();
    const onProgress = (progress: PairProgress): void => {
      if (progress.step === 'retrying' && progress.wait) window.retries.set(progress.deviceId, { api: progress.wait.api, inMs: progress.wait.inMs });
      this.changed();
    };
    const onOutcome = (outcome: LinkOutcome): void => {
      window.retries.delete(outcomeDevice(outcome));
      const ended = pairingEnd(outcome);
      window.outcomes.push({ deviceId: outcomeDevice(outcome), ok: outcome.ok, reason: ended.reason, linkId: ended.linkId });
      this.logger.info({ address, deviceId: outcomeDevice(outcome), ok: outcome.ok }, 'page: window outcome');
      this.changed();
    };
    this.handlers
      .window(seconds, {
        signal: this.#stop.signal,
        onProgress,
        onOutcome,
        onOpen: () => {
          window.opening = false;
          window.endsAt = performance.now() + seconds * 1000;
          this.changed();
        },
        customerId,
      })
      .catch((error: unknown) => {
        window.error = errorKindOf(error);
        this.logger.warn({ address, customerId, err: messageOf(error) }, 'page: window refused');
      })
      .finally(() => {
        window.open = false;
        window.opening = false;
        this.logger.info({ address, outcomes: window.outcomes.length }, 'page: pairing window closed');
        this.changed();
      });
    return true;
  }

  /** Runs the pre-flight checks; false while one is still running. */
  check(address: string): boolean {
    if (this.#check?.running) return false;
    this.logger.info({ address }, 'page: checks asked');
    const check: CheckView = { running: true };
    this.#check = check;
    this.changed();
    this.handlers
      .check()
      .then((report) => (check.report = { ok: report.ok, checks: report.checks.map(({ name, ok, skipped }) => (skipped ? { name, ok, skipped } : { name, ok })) }))
      .catch((error: unknown) => (check.error = errorKindOf(error)))
      .finally(() => {
        check.running = false;
        check.at = new Date().toISOString();
        this.changed();
      });
    return true;
  }

  lastCheck(): CheckView | undefined {
    return this.#check === undefined ? undefined : { ...this.#check };
  }

  async forget(deviceId: string, address: string): Promise<{ removed: boolean }> {
    const result = await this.handlers.forget(deviceId);
    this.logger.info({ address, deviceId, removed: result.removed }, 'page: device forgotten');
    this.#pairings.delete(deviceId);
    this.changed();
    return result;
  }

  pairings(): PairingView[] {
    return [...this.#pairings.values()].reverse();
  }

  window(): WindowView | undefined {
    if (this.#window === undefined) return undefined;
    const { endsAt, retries, ...view } = this.#window;
    return {
      ...view,
      outcomes: [...view.outcomes],
      retries: [...retries].map(([deviceId, wait]) => ({ deviceId, ...wait })),
      remainingMs: view.open ? Math.max(0, endsAt - performance.now()) : 0,
    };
  }

  /** The daemon is stopping: pairings and the window from the page end now. */
  stop(): void {
    this.#stop.abort();
  }
}

function outcomeDevice(outcome: LinkOutcome): string {
  return outcome.ok ? outcome.record.deviceId : outcome.deviceId;
}

function pairingEnd(outcome: LinkOutcome): Pick<PairingView, 'step' | 'reason' | 'linkId' | 'alreadyLinked'> {
  if (!outcome.ok) return { step: 'failed', reason: outcome.kind };
  const end: Pick<PairingView, 'step' | 'linkId' | 'alreadyLinked'> = { step: 'linked', alreadyLinked: outcome.alreadyLinked };
  if (outcome.record.linkId !== undefined) end.linkId = outcome.record.linkId;
  return end;
}
