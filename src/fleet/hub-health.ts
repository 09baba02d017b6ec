import { z } from 'zod';
import { readJsonObject } from '../discovery/mqtt-source.js';
import type { ButtonCounts } from '../supervision/types.js';

// A hub's `hubs/<id>/health` as the central reader takes it (CONTRACT.md sections 16 and 17): the
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
  // Hubs older than supervision (section 17) send none.
  buttons: buttonCounts.optional(),
});

export interface HubHealth {
  version: string;
  healthy: boolean;
  problems: string[];
  ble: string;
  mqtt: string;
  devices: { total: number; linked: number; linking: number; rejected: number; failed: number };
  uptimeSeconds: number;
  at: string;
  /** Wall-clock milliseconds of `at`. */
  atMs: number;
  buttons?: ButtonCounts;
}

export type HealthReading = { ok: true; health: HubHealth } | { ok: false; why: string };

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
  const { buttons, ...rest } = parsed.data;
  return { ok: true, health: { ...rest, atMs: Date.parse(rest.at), ...(buttons === undefined ? {} : { buttons }) } };
}
