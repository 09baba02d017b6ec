import type { Sighting } from '../sighting.js';
import type { DeviceLink } from '../api/types.js';
import type { DeviceRecord } from '../store/record.js';
import type { ErrorKind } from '../errors.js';

// The pairing engine's decisions, as pure functions of their inputs. The engine (engine.ts) is the
// thin I/O around them.

/** Which request, if any, asks for this sighting to be linked. */
export type LinkTrigger = 'targeted' | 'window' | 'auto';

export type LinkDecision =
  | { link: true }
  | { link: false; reason: 'linked' | 'busy' | 'not-requested' | 'weak' | 'rejected' | 'cooling-down' };

export interface LinkContext {
  record: DeviceRecord | undefined;
  /** A link job for this device is already under way. */
  busy: boolean;
  trigger: LinkTrigger | undefined;
  /** The sighting is at or above the RSSI floor, or the floor does not apply to it. */
  strongEnough: boolean;
  /** When the device's last link attempt failed (monotonic ms), if it did. */
  lastFailureAt: number | undefined;
  /** Monotonic ms (src/clock.ts). */
  now: number;
}

/**
 * The RSSI floor keeps the neighbour's button behind a wall from being linked by a window or by
 * automatic pairing. It applies to radio sightings (the hub's BLE or a BLE gateway) that carry an
 * RSSI; an MQTT announcement is not a radio report, and a targeted `pair <id>` ignores the floor.
 */
export function passesRssiFloor(sighting: Sighting, minRssi: number): boolean {
  if (sighting.source === 'mqtt' || sighting.rssi === undefined) return true;
  return sighting.rssi >= minRssi;
}

export function decideLink(context: LinkContext): LinkDecision {
  const { record, trigger } = context;
  if (record?.state === 'linked') return { link: false, reason: 'linked' };
  if (context.busy) return { link: false, reason: 'busy' };
  if (trigger === undefined) return { link: false, reason: 'not-requested' };
  if (trigger === 'targeted') return { link: true };
  // Window and automatic pairing: only strong, never-rejected buttons, and not while a recent
  // failure cools down (a flood of sightings must not hammer a failing API).
  if (!context.strongEnough) return { link: false, reason: 'weak' };
  if (record?.state === 'rejected') return { link: false, reason: 'rejected' };
  if (context.lastFailureAt !== undefined && context.now < context.lastFailureAt + COOL_DOWN_MS[trigger]) {
    return { link: false, reason: 'cooling-down' };
  }
  return { link: true };
}

/** A positive entitlement answer is reused for the TTL; a negative one is asked again. */
export function entitlementIsFresh(lastPositiveAt: number | undefined, now: number, ttlMs: number): boolean {
  return lastPositiveAt !== undefined && now - lastPositiveAt < ttlMs;
}

export function linkingRecord(input: {
  deviceId: string;
  customerId: number;
  source: string;
  deviceTypeId: number | undefined;
  now: number;
}): DeviceRecord {
  const record: DeviceRecord = {
    deviceId: input.deviceId,
    state: 'linking',
    customerId: input.customerId,
    source: input.source,
    updatedAt: new Date(input.now).toISOString(),
  };
  if (input.deviceTypeId !== undefined) record.deviceTypeId = input.deviceTypeId;
  return record;
}

export function linkedRecord(linking: DeviceRecord, link: DeviceLink, now: number): DeviceRecord {
  const at = new Date(now).toISOString();
  const { error: _dropped, ...rest } = linking;
  return { ...rest, state: 'linked', linkId: link.id, linkedAt: at, updatedAt: at };
}

/**
 * What a failed link leaves in the store. A 400 is the API's considered answer: `rejected`, with
 * its message. Everything else (retries exhausted, a reply that is not a valid link, a refused
 * token) is `failed` and is tried again at the next request.
 */
export function unlinkedRecord(linking: DeviceRecord, kind: ErrorKind, message: string, now: number): DeviceRecord {
  return {
    ...linking,
    state: kind === 'rejected' ? 'rejected' : 'failed',
    error: message,
    updatedAt: new Date(now).toISOString(),
  };
}

/**
 * How long sightings hold back after a failed attempt: a button reports several times a second,
 * and a failing API must not be asked at that pace. A window is an installer pressing buttons now,
 * so it waits less than unattended automatic pairing.
 */
export const COOL_DOWN_MS: Readonly<Record<'window' | 'auto', number>> = { window: 5_000, auto: 30_000 };
