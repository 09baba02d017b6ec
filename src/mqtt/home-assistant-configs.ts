import { createHash } from 'node:crypto';
import type { DeviceRecord, DeviceState } from '../store/record.js';
import { deviceTopic, entitlementTopic, statusTopic } from './topics.js';

// What Home Assistant reads to show the hub and its buttons (CONTRACT.md section 12): the
// discovery config topics and their payloads, as pure functions of the hub and the store. The
// payload of an entity depends only on settings and the record's customer, never on its state,
// so a state change never needs a config published again.

export const LINK_STATES: readonly DeviceState[] = ['linking', 'linked', 'rejected', 'failed'];

/** Templates are Jinja2, rendered by Home Assistant in Python: named here so tests render them. */
export const TEMPLATES = {
  /** `<prefix>/devices/<id>` to one of LINK_STATES; an enum sensor ignores anything else. */
  linkState: '{{ value_json.state }}',
  /** `<prefix>/entitlement` to ON/OFF; anything but a JSON `true` is OFF (fail closed). */
  entitled: "{{ 'ON' if value_json.entitled is sameas true else 'OFF' }}",
} as const;

/** The attributes of a button: its customer, fixed in the config, and the link id of its state. */
export function buttonAttributesTemplate(customerId: number): string {
  return `{{ {'customer_id': ${customerId}, 'link_id': value_json.get('linkId')} | tojson }}`;
}

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

/** The config topics of one button (one entity today). */
export function buttonConfigTopics(hub: HubIdentity, deviceId: string): string[] {
  return [configTopic(hub, 'sensor', buttonObjectId(deviceId))];
}

function buttonObjectId(deviceId: string): string {
  return `button_${discoveryId(deviceId)}`;
}

function uniqueId(hub: HubIdentity, objectId: string): string {
  return `panic_pair_${hubNodeId(hub)}_${objectId}`;
}

function hubDevice(hub: HubIdentity) {
  return {
    identifiers: [`panic_pair_${hubNodeId(hub)}`],
    name: `panic-pair hub ${hub.prefix}`,
    manufacturer: 'panic-pair',
    model: 'Panic button hub',
    sw_version: hub.version,
  };
}

function availability(hub: HubIdentity) {
  return { availability_topic: statusTopic(hub.prefix), payload_available: 'online', payload_not_available: 'offline' };
}

function origin(hub: HubIdentity) {
  return { name: 'panic-pair', sw_version: hub.version };
}

/** The hub's two entities: topic to payload. */
export function hubConfigs(hub: HubIdentity): Map<string, string> {
  const device = hubDevice(hub);
  const configs = new Map<string, string>();
  // No availability: this entity is the hub's availability, `off` (disconnected) once it stops.
  configs.set(
    configTopic(hub, 'binary_sensor', 'connectivity'),
    JSON.stringify({
      name: 'Connectivity',
      unique_id: uniqueId(hub, 'connectivity'),
      device_class: 'connectivity',
      entity_category: 'diagnostic',
      state_topic: statusTopic(hub.prefix),
      payload_on: 'online',
      payload_off: 'offline',
      qos: 1,
      device,
      origin: origin(hub),
    }),
  );
  configs.set(
    configTopic(hub, 'binary_sensor', 'entitled'),
    JSON.stringify({
      name: 'Entitled',
      unique_id: uniqueId(hub, 'entitled'),
      state_topic: entitlementTopic(hub.prefix),
      value_template: TEMPLATES.entitled,
      payload_on: 'ON',
      payload_off: 'OFF',
      qos: 1,
      ...availability(hub),
      device,
      origin: origin(hub),
    }),
  );
  return configs;
}

/** One button's entity: its link state, with customer and link id as attributes. */
export function buttonConfigs(hub: HubIdentity, record: Pick<DeviceRecord, 'deviceId' | 'customerId'>): Map<string, string> {
  const objectId = buttonObjectId(record.deviceId);
  const state = deviceTopic(hub.prefix, record.deviceId);
  const payload = {
    name: 'Link state',
    unique_id: uniqueId(hub, objectId),
    device_class: 'enum',
    options: LINK_STATES,
    state_topic: state,
    value_template: TEMPLATES.linkState,
    json_attributes_topic: state,
    json_attributes_template: buttonAttributesTemplate(record.customerId),
    qos: 1,
    ...availability(hub),
    device: {
      identifiers: [uniqueId(hub, objectId)],
      name: `Panic button ${record.deviceId}`,
      manufacturer: 'panic-pair',
      model: 'Panic button',
      via_device: hubDevice(hub).identifiers[0],
    },
    origin: origin(hub),
  };
  return new Map([[configTopic(hub, 'sensor', objectId), JSON.stringify(payload)]]);
}

/** Every config this hub should have on the broker now: the hub's and one set a stored button. */
export function desiredConfigs(hub: HubIdentity, records: Iterable<Pick<DeviceRecord, 'deviceId' | 'customerId'>>): Map<string, string> {
  const configs = hubConfigs(hub);
  for (const record of records) for (const [topic, payload] of buttonConfigs(hub, record)) configs.set(topic, payload);
  return configs;
}
