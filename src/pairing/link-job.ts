import type { PanicApi } from '../api/types.js';
import type { Counters } from '../status/counters.js';
import { errorKindOf, messageOf, PanicPairError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { DeviceRecord } from '../store/record.js';
import type { ApiHealth } from './api-health.js';
import { linkedRecord, linkingRecord, unlinkedRecord } from './decisions.js';
import type { CustomerGates } from './customer-gates.js';
import { belongsMessage, otherOwner } from './ownership.js';
import type { RequestSlots } from '../api/request-slots.js';
import type { LinkOutcome, PairStep } from './types.js';

/** The part of the pairing store the engine uses. */
export interface DeviceStore {
  get(deviceId: string): DeviceRecord | undefined;
  all(): DeviceRecord[];
  put(record: DeviceRecord): Promise<void>;
  remove(deviceId: string): Promise<boolean>;
  /** A put is coming soon: the store may begin its write ahead. */
  prepareWrite?(): void;
}

export interface LinkJobContext {
  /** The device's record as the engine knows it: the store, with links it failed to record laid over. */
  record(deviceId: string): DeviceRecord | undefined;
  defaultDeviceTypeId: number | undefined;
  api: PanicApi;
  store: DeviceStore;
  /** Entitlement of the hub's customer and of its household. */
  gates: CustomerGates;
  health: ApiHealth;
  /** Jobs writing their `linking` record or waiting for a request slot. */
  staging: RequestSlots;
  /** Jobs with a request out to the API. */
  slots: RequestSlots;
  /** The wall clock: it only stamps records, never measures. */
  clock: () => number;
  counters: Counters;
  logger: Logger;
  /** Every durable state change, for the retained MQTT state and the logs. */
  changed(record: DeviceRecord): void;
  /** The API linked the device but the store could not say so: the engine keeps it in memory. */
  unsaved(record: DeviceRecord): void;
}

export interface LinkTarget {
  deviceId: string;
  source: string;
  deviceTypeId: number | undefined;
  /** Whose button: the installer's choice or the record's own, never a sighting's. */
  customerId: number;
}

/**
 * One link, start to end: entitlement, `linking` written durably, the POST, the outcome written.
 * When `linking` cannot be written, no request goes out: the API never links a
 * device the store could lose.
 */
export async function runLinkJob(
  context: LinkJobContext,
  target: LinkTarget,
  step: (step: PairStep) => void,
): Promise<LinkOutcome> {
  const { deviceId, customerId } = target;
  try {
    step('checking');
    await context.gates.require(customerId);
  } catch (error) {
    return failure(deviceId, error);
  }

  // Two stages: `staging` while the `linking` record is written and the job waits for a request
  // slot, `slots` while the request is out. The next jobs' durable writes overlap the requests
  // before them, so a burst is paced by the API rather than by fsync (a slot never waits for a
  // write), and the records `linking` at any instant, what a crash can leave to finish, stay
  // bounded by the two stages' widths.
  const staged = await context.staging.acquire();
  let linking: DeviceRecord;
  try {
    const existing = context.record(deviceId);
    if (existing !== undefined && otherOwner(existing, customerId) !== undefined) {
      staged();
      return { ok: false, deviceId, kind: 'other-customer', message: belongsMessage(existing, customerId) };
    }
    if (existing?.state === 'linked') {
      staged();
      return { ok: true, record: existing, alreadyLinked: true };
    }
    linking = linkingRecord({
      deviceId,
      customerId,
      source: target.source,
      deviceTypeId: target.deviceTypeId ?? existing?.deviceTypeId ?? context.defaultDeviceTypeId,
      now: context.clock(),
    });
    await context.store.put(linking);
  } catch (error) {
    staged();
    context.logger.error({ deviceId, err: messageOf(error) }, 'not linking: the linking record could not be written');
    const kind = error instanceof PanicPairError ? error.kind : 'store';
    return { ok: false, deviceId, kind, message: `${deviceId} was not linked and no request was sent: ${messageOf(error)}` };
  }
  const release = await context.slots.acquire();
  staged();
  const request = { customerId, deviceId, ...optional('deviceTypeId', linking.deviceTypeId) };
  const linking$ = context.api.linkDevice(request);
  // The request leaves first; telling the world (retained MQTT state, logs, the CLI) comes after,
  // so that none of it sits between the durable `linking` record and the POST.
  setImmediate(() => {
    // The answer's record (linked or failed) will be written: its temporary file is made while
    // the API works, not after it answers.
    context.store.prepareWrite?.();
    context.changed(linking);
    step('linking');
  });

  let outcome: LinkOutcome;
  try {
    const link = await linking$;
    release();
    context.health.succeeded();
    context.counters.links++;
    const linked = linkedRecord(linking, link, context.clock());
    outcome = await persistLinked(context, linked);
  } catch (error) {
    release();
    context.health.failed(error);
    const kind = errorKindOf(error);
    const record = unlinkedRecord(linking, kind, messageOf(error), context.clock());
    await context.store.put(record).then(
      () => context.changed(record),
      (storeError: unknown) =>
        context.logger.error({ deviceId, err: messageOf(storeError) }, 'the failed link could not be recorded'),
    );
    outcome = { ok: false, deviceId, kind, message: messageOf(error), record };
  }
  if (outcome.ok) step('linked');
  return outcome;
}

async function persistLinked(context: LinkJobContext, linked: DeviceRecord): Promise<LinkOutcome> {
  try {
    await context.store.put(linked);
  } catch (error) {
    context.unsaved(linked);
    context.changed(linked);
    return {
      ok: false,
      deviceId: linked.deviceId,
      kind: 'store',
      message: `the API linked ${linked.deviceId} (link ${linked.linkId}) but the store could not record it: ${messageOf(error)}; it will be written again`,
      record: linked,
    };
  }
  context.changed(linked);
  return { ok: true, record: linked, alreadyLinked: false };
}

function failure(deviceId: string, error: unknown): LinkOutcome {
  const kind = error instanceof PanicPairError ? error.kind : 'failure';
  return { ok: false, deviceId, kind, message: messageOf(error) };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
