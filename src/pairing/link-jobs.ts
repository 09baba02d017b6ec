import type { RetryPolicy } from '../api/retry-delay.js';
import type { Sighting } from '../sighting.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { BackgroundRetries } from './background-retries.js';
import { runLinkJob, type LinkJobContext } from './link-job.js';
import { RecentFailures } from './recent-failures.js';
import type { LinkOutcome, PairStep } from './types.js';

export interface Job {
  promise: Promise<LinkOutcome>;
  /** Asked for by an installer or left by a crash (not automatic pairing): retried in the background. */
  asked: boolean;
  /** Whose button this job links: the hub's customer or one of its household. */
  customerId: number;
  /** What started it, to start it again after a passing failure. */
  sighting: Sighting;
  step: PairStep;
  listeners: Set<(step: PairStep) => void>;
}

// The link jobs under way, one per device at a time (link-job.ts runs each), and what follows
// their end: a failure holds back that device's sightings for a while (decisions.ts), and a link
// asked for that failed for a passing reason is tried again in the background.
export class LinkJobs {
  readonly #jobs = new Map<string, Job>();
  /** When each device's last attempt failed, to hold back sightings for a while. */
  readonly #lastFailure = new RecentFailures();
  readonly #retries: BackgroundRetries;
  readonly #context: LinkJobContext;
  /** Monotonic. */
  readonly #clock: () => number;
  readonly #logger: Logger;
  /** The daemon is stopping: no background retry starts or is scheduled. */
  readonly #closing: () => boolean;

  constructor(options: {
    context: LinkJobContext;
    clock: () => number;
    wallClock: () => number;
    logger: Logger;
    backgroundRetry: RetryPolicy | undefined;
    closing(): boolean;
  }) {
    this.#context = options.context;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#closing = options.closing;
    this.#retries = new BackgroundRetries({
      policy: options.backgroundRetry,
      clock: options.wallClock,
      logger: options.logger,
      retry: (target) => {
        if (this.#closing() || this.#jobs.has(target.deviceId)) return 'later';
        if (this.#context.record(target.deviceId)?.state === 'linked') return 'done';
        void this.start({ ...target, at: this.#clock() }, true, target.customerId).promise.then((outcome) => this.logUnattended(outcome));
        return 'started';
      },
    });
  }

  get(deviceId: string): Job | undefined {
    return this.#jobs.get(deviceId);
  }

  has(deviceId: string): boolean {
    return this.#jobs.has(deviceId);
  }

  get size(): number {
    return this.#jobs.size;
  }

  lastFailureAt(deviceId: string): number | undefined {
    return this.#lastFailure.get(deviceId);
  }

  /** Links waiting for a background retry. */
  get pendingRetries(): number {
    return this.#retries.size;
  }

  /** The device's job under way, else a new one linking it to `customerId`. */
  start(sighting: Sighting, asked: boolean, customerId: number): Job {
    const existing = this.#jobs.get(sighting.deviceId);
    if (existing !== undefined) return existing;
    const job: Job = { asked, customerId, sighting, step: 'checking', listeners: new Set(), promise: undefined as unknown as Promise<LinkOutcome> };
    const step = (next: PairStep): void => {
      job.step = next;
      for (const listener of job.listeners) listener(next);
    };
    const target = { deviceId: sighting.deviceId, source: sighting.source, deviceTypeId: sighting.deviceTypeId, customerId };
    job.promise = runLinkJob(this.#context, target, step)
      .catch((error: unknown): LinkOutcome => ({ ok: false, deviceId: target.deviceId, kind: 'failure', message: messageOf(error) }))
      .then((outcome) => {
        this.#jobs.delete(sighting.deviceId);
        if (outcome.ok) this.#lastFailure.clear(sighting.deviceId);
        else this.#lastFailure.failed(sighting.deviceId, this.#clock());
        if (job.asked && !this.#closing()) this.#retries.after(target, outcome);
        else this.#retries.cancel(target.deviceId);
        return outcome;
      });
    this.#jobs.set(sighting.deviceId, job);
    return job;
  }

  /**
   * After a crash, `linking` records are requests that may or may not have reached the API: finish
   * them (at most one extra POST each) and report what became of them.
   */
  async recover(): Promise<LinkOutcome[]> {
    const interrupted = this.#context.store.all().filter((record) => record.state === 'linking');
    if (interrupted.length === 0) return [];
    this.#logger.warn({ devices: interrupted.map((r) => r.deviceId) }, 'finishing links interrupted by a restart');
    const outcomes = await Promise.all(
      interrupted.map((record) =>
        // The record's own customer: a crash never moves a button to someone else.
        this.start({ deviceId: record.deviceId, source: record.source, deviceTypeId: record.deviceTypeId, at: this.#clock() }, true, record.customerId)
          .promise,
      ),
    );
    outcomes.forEach((outcome) => this.logUnattended(outcome));
    return outcomes;
  }

  /** `forget`: the device's failures and retries go with its record. */
  forget(deviceId: string): void {
    this.#lastFailure.clear(deviceId);
    this.#retries.cancel(deviceId);
  }

  /** Ends the background retries; resolves once every job under way has settled. */
  settle(): Promise<Array<PromiseSettledResult<LinkOutcome>>> {
    this.#retries.cancelAll();
    return Promise.allSettled([...this.#jobs.values()].map((job) => job.promise));
  }

  /** The outcome of a link nobody waits for (automatic pairing, a background retry, crash recovery), in the log. */
  logUnattended(outcome: LinkOutcome): void {
    if (outcome.ok) this.#logger.info({ deviceId: outcome.record.deviceId, linkId: outcome.record.linkId }, 'linked');
    else this.#logger.warn({ deviceId: outcome.deviceId, kind: outcome.kind, reason: outcome.message }, 'not linked');
  }
}
