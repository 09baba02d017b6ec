import type { DeviceState } from '../store/record.js';
import type { DeviceRow } from '../supervision/types.js';
import { configTopic, discoveryId, hubAvailability, hubNodeId, origin, uniqueId, type HubIdentity } from './home-assistant-ids.js';
import { supervisionConfigs, supervisionConfigTopics } from './home-assistant-supervision.js';
import { updateConfig } from './home-assistant-update.js';
import { deviceTopic, entitlementTopic, statusTopic } from './topics.js';

export { birthTopic, configTopic, discoveryId, hubConfigFilter, hubNodeId, type HubIdentity } from './home-assistant-ids.js';
export { SUPERVISION_TEMPLATES } from './home-assistant-supervision.js';
export { UPDATE_TEMPLATE } from './home-assistant-update.js';

// What Home Assistant reads to show the hub and its buttons, with their supervision: the
// discovery config topics and their payloads, as pure functions of the hub and the store. A
// payload depends only on settings and the record's customer, never on a state or a reading, so
// configs change only when a button is added, becomes linked (its supervision entities), has its
// battery first known, or is forgotten.

/** What a button's configs depend on: a stored device, and for a linked one whether a battery is known. */
export type ButtonRow = Pick<DeviceRow, 'deviceId' | 'customerId'> & Partial<Pick<DeviceRow, 'state' | 'battery' | 'authenticated'>>;

/** A battery is known when the row carries one; Home Assistant's battery sensor is published from then on. */
export const batteryKnown = (row: ButtonRow): boolean => typeof row.battery === 'number';
/** A keyed (trusted) button has an "Imitated" tamper sensor. */
export const keyedRow = (row: ButtonRow): boolean => row.authenticated === true;

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

/** Every config topic one button may have: its link state, and its supervision entities once linked. */
export function buttonConfigTopics(hub: HubIdentity, deviceId: string): string[] {
  return [configTopic(hub, 'sensor', buttonObjectId(deviceId)), ...supervisionConfigTopics(hub, deviceId)];
}

function buttonObjectId(deviceId: string): string {
  return `button_${discoveryId(deviceId)}`;
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

/** The hub's three entities: topic to payload. */
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
      ...hubAvailability(hub),
      device,
      origin: origin(hub),
    }),
  );
  configs.set(...updateConfig(hub, device));
  return configs;
}

/**
 * One button's entities: its link state, with customer and link id as attributes; once linked,
 * "Missing" and "Last heard"; its battery from when one is known (`withBattery`).
 */
export function buttonConfigs(hub: HubIdentity, record: ButtonRow, withBattery = batteryKnown(record), keyed = keyedRow(record)): Map<string, string> {
  const objectId = buttonObjectId(record.deviceId);
  const state = deviceTopic(hub.prefix, record.deviceId);
  const device = {
    identifiers: [uniqueId(hub, objectId)],
    name: `Panic button ${record.deviceId}`,
    manufacturer: 'panic-pair',
    model: 'Panic button',
    via_device: hubDevice(hub).identifiers[0],
  };
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
    ...hubAvailability(hub),
    device,
    origin: origin(hub),
  };
  const configs = new Map([[configTopic(hub, 'sensor', objectId), JSON.stringify(payload)]]);
  // Supervision is of linked buttons: a failed or rejected one is never heard for.
  if (record.state === 'linked') for (const entry of supervisionConfigs(hub, record.deviceId, device, withBattery, keyed)) configs.set(...entry);
  return configs;
}

/** Every config this hub should have on the broker now: the hub's and one set a stored button. */
export function desiredConfigs(
  hub: HubIdentity,
  records: Iterable<ButtonRow>,
  withBattery: (row: ButtonRow) => boolean = batteryKnown,
  keyed: (row: ButtonRow) => boolean = keyedRow,
): Map<string, string> {
  const configs = hubConfigs(hub);
  for (const record of records) for (const [topic, payload] of buttonConfigs(hub, record, withBattery(record), keyed(record))) configs.set(topic, payload);
  return configs;
}

/**
 * Every config topic the stored buttons may have, published or not: never cleared as naming
 * nothing held. A battery sensor stays once published, though a restart forgets the reading
 * until the button's next report.
 */
export function heldConfigTopics(hub: HubIdentity, records: Iterable<ButtonRow>): Set<string> {
  const topics = new Set<string>();
  for (const record of records) for (const topic of buttonConfigTopics(hub, record.deviceId)) topics.add(topic);
  return topics;
}
