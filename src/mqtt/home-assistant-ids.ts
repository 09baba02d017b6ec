import { createHash } from 'node:crypto';
import { statusTopic } from './topics.js';

// Where this hub's discovery configs live and what names its entities and devices:
// every id of `[a-zA-Z0-9_-]`, stable across restarts, apart from another hub's.

export interface HubIdentity {
  /** The hub's MQTT prefix (PANIC_PAIR_MQTT_PREFIX). */
  prefix: string;
  /** Home Assistant's discovery prefix. */
  discoveryPrefix: string;
  /** The package version, shown on the hub device. */
  version: string;
}

/**
 * A node or object id from any text: `[a-zA-Z0-9_-]` only. When characters had to be replaced,
 * a short hash of the original keeps two ids that differ only there (`a:b`, `a.b`, `a_b`) apart.
 */
export function discoveryId(raw: string): string {
  const clean = raw.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (clean === raw) return raw;
  return `${clean}_${createHash('sha256').update(raw).digest('hex').slice(0, 8)}`;
}

/** The hub's node id: every config of this hub, and no other hub's, lives under it. */
export function hubNodeId(hub: HubIdentity): string {
  return discoveryId(hub.prefix);
}

export function configTopic(hub: HubIdentity, component: string, objectId: string): string {
  return `${hub.discoveryPrefix}/${component}/${hubNodeId(hub)}/${objectId}/config`;
}

/** Every config topic of this hub (and of no other hub on the broker). */
export function hubConfigFilter(hub: HubIdentity): string {
  return `${hub.discoveryPrefix}/+/${hubNodeId(hub)}/+/config`;
}

/** Home Assistant's birth and last will (`online` / `offline`). */
export function birthTopic(hub: HubIdentity): string {
  return `${hub.discoveryPrefix}/status`;
}

export function uniqueId(hub: HubIdentity, objectId: string): string {
  return `panic_pair_${hubNodeId(hub)}_${objectId}`;
}

/** Every entity but the hub's connectivity is unavailable while the hub is offline. */
export function hubAvailability(hub: HubIdentity) {
  return { availability_topic: statusTopic(hub.prefix), payload_available: 'online', payload_not_available: 'offline' };
}

export function origin(hub: HubIdentity) {
  return { name: 'panic-pair', sw_version: hub.version };
}
