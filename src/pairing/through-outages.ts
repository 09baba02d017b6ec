import type { Sighting } from '../sighting.js';
import { PanicPairError } from '../errors.js';
import type { DeviceRecord } from '../store/record.js';
import { abortableDelay, raceAbort, reasonOf } from './deadline.js';
import type { Job, LinkJobs } from './link-jobs.js';
import { isPassingFailure, KEEPS_TRYING, outageRetryMs, outageText } from './outage.js';
import type { LinkOutcome, OutageWait, PairStep } from './types.js';
import type { PairingWindows } from './windows.js';

/** What following a link through outages needs of the engine. */
export interface OutageContext {
  jobs: LinkJobs;
  /** The API's base address, for the installer's messages (never the token). */
  apiAddress: string;
  /** Monotonic. */
  clock: () => number;
  /** The daemon is stopping: no new try. */
  closing(): boolean;
  record(deviceId: string): DeviceRecord | undefined;
}

/**
 * A job seen through passing failures: after each, a short wait shown
 * to the installer, then the link again, until it ends another way or `signal` fires (the
 * time is up) or `tryAgain` says the next try comes too late. Resolves with the last outcome.
 */
export async function throughOutages(
  context: OutageContext,
  first: Job,
  options: {
    signal: AbortSignal;
    progress(step: PairStep, wait?: OutageWait): void;
    /** The time is up; `last` is the passing failure being waited out, if any. */
    onTimeout(last: (LinkOutcome & { ok: false }) | undefined): Error;
    tryAgain?(inMs: number): boolean;
  },
): Promise<LinkOutcome> {
  let job = first;
  let last: (LinkOutcome & { ok: false }) | undefined;
  for (let attempt = 1; ; attempt += 1) {
    const report = (step: PairStep): void => options.progress(step);
    report(job.step);
    job.listeners.add(report);
    let outcome: LinkOutcome;
    try {
      outcome = await raceAbort(job.promise, options.signal, () => options.onTimeout(last));
    } finally {
      job.listeners.delete(report);
    }
    const inMs = outageRetryMs(attempt);
    if (!isPassingFailure(outcome) || context.closing() || options.signal.aborted) return outcome;
    last = outcome;
    if (options.tryAgain?.(inMs) === false) return outcome;
    options.progress('retrying', { api: context.apiAddress, reason: outcome.message, inMs });
    await abortableDelay(inMs, options.signal);
    if (options.signal.aborted) throw reasonOf(options.signal, () => options.onTimeout(last));
    if (context.closing()) return outcome;
    // The background retry of this same link may have finished it during the wait.
    const linked = context.record(job.sighting.deviceId);
    if (linked?.state === 'linked') return { ok: true, record: linked, alreadyLinked: false };
    // The job under way for this button, if any (start returns it), else a new one.
    const next = context.jobs.start({ ...job.sighting, at: context.clock() }, true, job.customerId);
    // Started meanwhile for another customer (another installer's request): not ours to follow.
    if (next.customerId !== job.customerId) return outcome;
    next.asked = true;
    job = next;
  }
}

/** A window's link, tried again through passing failures while the window stays open. */
export async function throughWindowOutages(context: OutageContext, windows: PairingWindows, job: Job): Promise<LinkOutcome> {
  const { deviceId } = job.sighting;
  const outcome = await throughOutages(context, job, {
    signal: new AbortController().signal,
    progress: (step, wait) => windows.tell({ deviceId, step, ...sourceOf(job.sighting), ...(wait ? { wait } : {}) }),
    onTimeout: () => new PanicPairError('failure', 'the window was cancelled'),
    tryAgain: (inMs) => windows.isOpen(context.clock() + inMs),
  });
  if (!isPassingFailure(outcome)) return outcome;
  return { ...outcome, message: `not linked while the window was open: ${outageText(context.apiAddress, outcome.message)}; ${KEEPS_TRYING}` };
}

/** Where the button was heard, for the installer's progress lines. */
export function sourceOf(sighting: Sighting | undefined): { source?: string; rssi?: number } {
  if (sighting === undefined) return {};
  return sighting.rssi === undefined ? { source: sighting.source } : { source: sighting.source, rssi: sighting.rssi };
}
