import type { Sighting } from '../sighting.js';
import { PanicPairError } from '../errors.js';
import { requireMember } from './customer-checks.js';
import type { CustomerGates } from './customer-gates.js';
import { seconds, timedOut, timeoutSignal } from './deadline.js';
import { KEEPS_TRYING, outageText } from './outage.js';
import { belongsMessage, otherOwner } from './ownership.js';
import type { HeardButtons } from './heard-buttons.js';
import type { SightingWaiters } from './sighting-waiters.js';
import { sourceOf, throughOutages, type OutageContext } from './through-outages.js';
import type { LinkOutcome, OutageWait, PairProgress, PairStep } from './types.js';

/** What `pair <id>` needs of the engine beyond following a link through outages. */
export interface PairContext extends OutageContext {
  hubCustomerId: number;
  gates: CustomerGates;
  heard: HeardButtons;
  waiters: SightingWaiters;
}

export interface PairOptions {
  timeoutMs: number;
  signal: AbortSignal;
  onProgress(progress: PairProgress): void;
  customerId?: number;
}

/**
 * `pair <deviceId> [--customer N]`: link this button to N (the hub's customer when not given) as
 * soon as it is seen (at once if seen just now). N other than the hub's customer is checked
 * before waiting: in the household and entitled by its own list (customer-gates.ts).
 */
export async function pairButton(context: PairContext, deviceId: string, options: PairOptions): Promise<LinkOutcome> {
  const customerId = options.customerId ?? context.hubCustomerId;
  const timeout = timeoutSignal(options.timeoutMs, options.signal);
  try {
    const record = context.record(deviceId);
    if (record !== undefined && otherOwner(record, customerId) !== undefined) throw new PanicPairError('other-customer', belongsMessage(record, customerId));
    if (record?.state === 'linked') return { ok: true, record, alreadyLinked: true };
    if (customerId !== context.hubCustomerId) await requireMember(context.gates, customerId);
    const running = context.jobs.get(deviceId);
    const sighting =
      running === undefined
        ? (context.heard.recent(deviceId) ?? (await waitForSighting(context, deviceId, timeout.signal, options.onProgress, customerId)))
        : undefined;
    const job = context.jobs.get(deviceId) ?? (sighting ? context.jobs.start(sighting, true, customerId) : undefined);
    if (job === undefined) throw new PanicPairError('failure', `no link job for ${deviceId}`);
    if (job.customerId !== customerId) {
      throw new PanicPairError('failure', `${deviceId} is being linked to customer ${job.customerId} right now, not ${customerId}; a button is linked to one customer only`);
    }
    job.asked = true;
    const progress = (step: PairStep, wait?: OutageWait): void =>
      options.onProgress({ deviceId, step, customerId, ...sourceOf(sighting), ...(wait ? { wait } : {}) });
    return await throughOutages(context, job, {
      signal: timeout.signal,
      progress,
      onTimeout: (last) =>
        last === undefined
          ? timedOut(deviceId, `the API did not answer about ${deviceId} within ${seconds(options.timeoutMs)}; it is still being linked, see \`panic-pair devices\``)
          : timedOut(deviceId, `${deviceId} was not linked within ${seconds(options.timeoutMs)}: ${outageText(context.apiAddress, last.message)}; ${KEEPS_TRYING}`),
    });
  } catch (error) {
    if (error instanceof PanicPairError) return { ok: false, deviceId, kind: error.kind, message: error.message };
    throw error;
  } finally {
    timeout.dispose();
  }
}

function waitForSighting(
  context: PairContext,
  deviceId: string,
  signal: AbortSignal,
  onProgress: (progress: PairProgress) => void,
  customerId: number,
): Promise<Sighting> {
  onProgress({ deviceId, step: 'waiting', customerId });
  return context.waiters.wait(deviceId, signal);
}
