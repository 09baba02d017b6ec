import { availabilityTopic, supervisionTopic } from './topics.js';
import { configTopic, discoveryId, hubAvailability, origin, uniqueId, type HubIdentity } from './home-assistant-ids.js';

// What a linked button's supervision adds to its Home Assistant device:
// "Missing" (a problem binary_sensor), "Last heard" (a timestamp) and, once a report carried one,
// its battery. None of them uses the button's availability topic as Home Assistant availability:
// a missing button would then show "unavailable" and hide the very problem it is.

/**
 * Jinja2, rendered by Home Assistant in Python. `None` is Home Assistant's word for unknown (a
 * sensor, a binary_sensor): a payload it cannot show, an empty (cleared) one included, reads as
 * unknown rather than as an error or a stale value.
 */
export const SUPERVISION_TEMPLATES = {
  /** Availability to ON (missing) / OFF (online). */
  missing: "{{ {'offline': 'ON', 'online': 'OFF'}[value_json.state] if value_json is mapping and value_json.state in ['offline', 'online'] else 'None' }}",
  /** Supervision to the percent. */
  battery: "{{ value_json.battery if value_json is mapping and value_json.battery is number else 'None' }}",
  /** Supervision to the ISO time, which a timestamp sensor parses. */
  lastHeard: "{{ value_json.lastHeard if value_json is mapping and value_json.lastHeard is string else 'None' }}",
  /** Supervision to ON (imitated) / OFF, for a keyed button. */
  imitated: "{{ ('ON' if value_json.imitated else 'OFF') if value_json is mapping and value_json.imitated is boolean else 'None' }}",
} as const;

// Prefixes of their own rather than `button_<id>_missing`: a button whose id ends in `_missing`
// would otherwise share an object id with another's entity.
export const missingObjectId = (deviceId: string): string => `missing_${discoveryId(deviceId)}`;
export const lastHeardObjectId = (deviceId: string): string => `last_heard_${discoveryId(deviceId)}`;
export const batteryObjectId = (deviceId: string): string => `battery_${discoveryId(deviceId)}`;
export const imitatedObjectId = (deviceId: string): string => `imitated_${discoveryId(deviceId)}`;

export function supervisionConfigTopics(hub: HubIdentity, deviceId: string): string[] {
  return [
    configTopic(hub, 'binary_sensor', missingObjectId(deviceId)),
    configTopic(hub, 'sensor', lastHeardObjectId(deviceId)),
    configTopic(hub, 'sensor', batteryObjectId(deviceId)),
    configTopic(hub, 'binary_sensor', imitatedObjectId(deviceId)),
  ];
}

/** A linked button's supervision entities, on its device (`device`); the battery only when known,
 * "Imitated" (a tamper binary_sensor) only for a keyed button. */
export function supervisionConfigs(hub: HubIdentity, deviceId: string, device: object, withBattery: boolean, keyed = false): Map<string, string> {
  const shared = { qos: 1, ...hubAvailability(hub), device, origin: origin(hub) };
  const configs = new Map<string, string>();
  const add = (component: string, objectId: string, entity: object): void => {
    configs.set(configTopic(hub, component, objectId), JSON.stringify({ ...entity, unique_id: uniqueId(hub, objectId), ...shared }));
  };
  add('binary_sensor', missingObjectId(deviceId), {
    name: 'Missing',
    device_class: 'problem',
    state_topic: availabilityTopic(hub.prefix, deviceId),
    value_template: SUPERVISION_TEMPLATES.missing,
    payload_on: 'ON',
    payload_off: 'OFF',
  });
  add('sensor', lastHeardObjectId(deviceId), {
    name: 'Last heard',
    device_class: 'timestamp',
    entity_category: 'diagnostic',
    state_topic: supervisionTopic(hub.prefix, deviceId),
    value_template: SUPERVISION_TEMPLATES.lastHeard,
  });
  if (withBattery) {
    add('sensor', batteryObjectId(deviceId), {
      name: 'Battery',
      device_class: 'battery',
      unit_of_measurement: '%',
      state_class: 'measurement',
      state_topic: supervisionTopic(hub.prefix, deviceId),
      value_template: SUPERVISION_TEMPLATES.battery,
    });
  }
  if (keyed) {
    add('binary_sensor', imitatedObjectId(deviceId), {
      name: 'Imitated',
      device_class: 'tamper',
      state_topic: supervisionTopic(hub.prefix, deviceId),
      value_template: SUPERVISION_TEMPLATES.imitated,
      payload_on: 'ON',
      payload_off: 'OFF',
    });
  }
  return configs;
}
