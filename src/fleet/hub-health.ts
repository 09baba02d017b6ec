import { z } from 'zod';
import { readJsonObject } from '../discovery/mqtt-source.js';
import type { ButtonCounts } from '../supervision/types.js';
import { updateOutcomeSchema } from '../update/record.js';
import type { UpdateOutcome } from '../update/words.js';

// A hub's `hubs/<id>/health` as the central reader takes it: the
// daemon's HealthPayload (src/mqtt/topics.ts), checked field by field, since whatever a hub (or
// anyone allowed to publish there) sent is outside input. Unknown fields are left out; words that
// newer daemons may add (a `ble` state) are kept as strings rather than refused.

/** Larger than this is refused unread: a hub's health is under 1 KiB, a few hundred problems included. */
export const MAX_HEALTH_BYTES = 64 * 1024;

const count = z.int().min(0);
const buttonCounts = z.object({
  linked: count,
  online: count,
  missing: count,
  unknown: count,
  unsupervised: count,
  batteryLow: count,
});

const healthSchema = z.object({
  version: z.string().min(1).max(64),
  healthy: z.boolean(),
  problems: z.array(z.string().max(1000)).max(1000),
  ble: z.string().max(32),
  mqtt: z.string().max(32),
  devices: z.object({ total: count, linked: count, linking: count, rejected: count, failed: count }),
  uptimeSeconds: z.number().min(0),
  at: z.iso.datetime({ offset: true }),
  // Hubs older than supervision send none.
  buttons: buttonCounts.optional(),
  // Hubs older than updates on probation send none: no update recorded.
  update: updateOutcomeSchema.nullable().optional(),
});

/**
 * What a row needs of a health, all a reader keeps of it a hub: `ble`, `mqtt` and `devices` are
 * checked (a health that breaks them is unreadable) but not kept. 100,000 hubs' health is held at
 * once, so what many hubs say alike (a version, no problem, the same button counts) is kept once,
 * shared and frozen (docs/reference/performance.md).
 */
export interface HubHealth {
  version: string;
  healthy: boolean;
  problems: readonly string[];
  uptimeSeconds: number;
  at: string;
  /** Wall-clock milliseconds of `at`. */
  atMs: number;
  buttons?: Readonly<ButtonCounts>;
  /** Where its latest update stands; null when it says none (or is too old to say). */
  update: Readonly<UpdateOutcome> | null;
}

export type HealthReading = { ok: true; health: HubHealth } | { ok: false; why: string };

export const NO_PROBLEMS: readonly string[] = Object.freeze([]);

/**
 * One copy of each value many hubs share, by its key. Bounded, since a value is whatever a hub
 * (or anyone allowed to publish there) sent: past the bound, values are kept as they came.
 */
class OneCopy<T> {
  readonly #byKey = new Map<string, T>();
  constructor(readonly bound: number) {}

  of(key: string, value: T): T {
    const known = this.#byKey.get(key);
    if (known !== undefined) return known;
    if (this.#byKey.size < this.bound) this.#byKey.set(key, value);
    return value;
  }
}

/** A fleet runs a few versions. */
const versions = new OneCopy<string>(1_000);
/** Hubs have a few buttons each, most of them online: few distinct counts in a fleet. */
const countsSeen = new OneCopy<Readonly<ButtonCounts>>(10_000);

function sharedButtons(buttons: ButtonCounts): Readonly<ButtonCounts> {
  const { linked, online, missing, unknown, unsupervised, batteryLow } = buttons;
  return countsSeen.of(`${linked} ${online} ${missing} ${unknown} ${unsupervised} ${batteryLow}`, Object.freeze(buttons));
}

/** Its versions are the few a fleet runs, kept once; its time is its own. */
function sharedUpdate(update: UpdateOutcome): Readonly<UpdateOutcome> {
  const { state, version, previous, reason, at } = update;
  return Object.freeze({ state, version: versions.of(version, version), previous: versions.of(previous, previous), reason, at });
}

/** The health, or in a few words why it cannot be read ("not JSON", "problems: expected array"). */
export function readHealth(payload: Buffer): HealthReading {
  if (payload.length > MAX_HEALTH_BYTES) return { ok: false, why: `${payload.length} bytes, over the ${MAX_HEALTH_BYTES} a health may take` };
  const read = readJsonObject(payload, MAX_HEALTH_BYTES);
  if ('invalid' in read) return { ok: false, why: read.invalid };
  const parsed = healthSchema.safeParse(read.object);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
    return { ok: false, why: `${where}${issue?.message ?? 'not a health'}` };
  }
  const { version, healthy, problems, uptimeSeconds, at, buttons, update } = parsed.data;
  const health: HubHealth = {
    version: versions.of(version, version),
    healthy,
    problems: problems.length === 0 ? NO_PROBLEMS : problems,
    uptimeSeconds,
    at,
    atMs: Date.parse(at),
    update: update == null ? null : sharedUpdate(update),
  };
  if (buttons !== undefined) health.buttons = sharedButtons(buttons);
  return { ok: true, health };
}
