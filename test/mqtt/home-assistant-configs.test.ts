import { describe, expect, it } from 'vitest';
import {
  buttonConfigs,
  buttonConfigTopics,
  desiredConfigs,
  discoveryId,
  hubConfigFilter,
  hubConfigs,
  heldConfigTopics,
  LINK_STATES,
  SUPERVISION_TEMPLATES,
  TEMPLATES,
  UPDATE_TEMPLATE,
  type HubIdentity,
} from '../../src/mqtt/home-assistant-configs.js';
import { planDiscovery } from '../../src/mqtt/home-assistant-plan.js';
import { topicMatches } from '../../src/mqtt/subscriptions.js';
import { binarySensorState, enumSensorState, renderTemplates, updateEntityFields } from '../support/home-assistant-render.js';

const hub: HubIdentity = { prefix: 'panic-pair', discoveryPrefix: 'homeassistant', version: '1.2.3' };
const parsed = (configs: Map<string, string>): Record<string, Record<string, unknown>> =>
  Object.fromEntries([...configs].map(([topic, payload]) => [topic, JSON.parse(payload) as Record<string, unknown>]));

describe('discovery ids', () => {
  it('keeps an id of [a-zA-Z0-9_-] as it is', () => {
    expect(discoveryId('7F3A9C')).toBe('7F3A9C');
    expect(discoveryId('panic-pair_2')).toBe('panic-pair_2');
  });

  it('replaces other characters and keeps ids that differ only there apart', () => {
    const ids = ['AA:BB:CC', 'AA.BB.CC', 'AA_BB_CC', 'AA:BB.CC', 'home/panic'].map(discoveryId);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(discoveryId('AA:BB:CC')).toMatch(/^AA_BB_CC_[0-9a-f]{8}$/);
    // Stable: the same id every run, so Home Assistant keeps the same entity.
    expect(discoveryId('AA:BB:CC')).toBe(discoveryId('AA:BB:CC'));
  });
});

describe('the configs', () => {
  it('describe the hub: connectivity on the status topic, Entitled, and its software update on its health', () => {
    const device = { identifiers: ['panic_pair_panic-pair'], name: 'panic-pair hub panic-pair', manufacturer: 'panic-pair', model: 'Panic button hub', sw_version: '1.2.3' };
    const origin = { name: 'panic-pair', sw_version: '1.2.3' };
    expect(parsed(hubConfigs(hub))).toEqual({
      'homeassistant/binary_sensor/panic-pair/connectivity/config': {
        name: 'Connectivity',
        unique_id: 'panic_pair_panic-pair_connectivity',
        device_class: 'connectivity',
        entity_category: 'diagnostic',
        state_topic: 'panic-pair/status',
        payload_on: 'online',
        payload_off: 'offline',
        qos: 1,
        device,
        origin,
      },
      'homeassistant/binary_sensor/panic-pair/entitled/config': {
        name: 'Entitled',
        unique_id: 'panic_pair_panic-pair_entitled',
        state_topic: 'panic-pair/entitlement',
        value_template: "{{ 'ON' if value_json.entitled is sameas true else 'OFF' }}",
        payload_on: 'ON',
        payload_off: 'OFF',
        qos: 1,
        availability_topic: 'panic-pair/status',
        payload_available: 'online',
        payload_not_available: 'offline',
        device,
        origin,
      },
      'homeassistant/update/panic-pair/update/config': {
        name: 'Software',
        unique_id: 'panic_pair_panic-pair_update',
        entity_category: 'diagnostic',
        title: 'panic-pair',
        state_topic: 'panic-pair/health',
        value_template: UPDATE_TEMPLATE,
        qos: 1,
        availability_topic: 'panic-pair/status',
        payload_available: 'online',
        payload_not_available: 'offline',
        device,
        origin,
      },
    });
  });

  it('describe a button with a sanitised object id and its real id in the state topic', () => {
    const configs = parsed(buttonConfigs(hub, { deviceId: 'AA:BB', customerId: 42 }));
    const topic = `homeassistant/sensor/panic-pair/button_${discoveryId('AA:BB')}/config`;
    expect(Object.keys(configs)).toEqual([topic]);
    expect(buttonConfigTopics(hub, 'AA:BB')[0]).toEqual(topic);
    expect(configs[topic]).toMatchObject({
      name: 'Link state',
      unique_id: `panic_pair_panic-pair_button_${discoveryId('AA:BB')}`,
      device_class: 'enum',
      options: ['linking', 'linked', 'rejected', 'failed'],
      state_topic: 'panic-pair/devices/AA:BB',
      value_template: '{{ value_json.state }}',
      json_attributes_topic: 'panic-pair/devices/AA:BB',
      json_attributes_template: "{{ {'customer_id': 42, 'link_id': value_json.get('linkId')} | tojson }}",
      availability_topic: 'panic-pair/status',
      device: { name: 'Panic button AA:BB', via_device: 'panic_pair_panic-pair' },
    });
  });

  it('give a linked button Missing and Last heard on its own device, and its battery once known', () => {
    const id = discoveryId('AA:BB');
    const linked = parsed(buttonConfigs(hub, { deviceId: 'AA:BB', customerId: 42, state: 'linked', battery: null }));
    const linkState = linked[`homeassistant/sensor/panic-pair/button_${id}/config`]!;
    expect(Object.keys(linked)).toEqual([
      `homeassistant/sensor/panic-pair/button_${id}/config`,
      `homeassistant/binary_sensor/panic-pair/missing_${id}/config`,
      `homeassistant/sensor/panic-pair/last_heard_${id}/config`,
    ]);
    const shared = { qos: 1, availability_topic: 'panic-pair/status', payload_available: 'online', payload_not_available: 'offline', device: linkState.device, origin: linkState.origin };
    expect(linked[`homeassistant/binary_sensor/panic-pair/missing_${id}/config`]).toEqual({
      name: 'Missing',
      unique_id: `panic_pair_panic-pair_missing_${id}`,
      device_class: 'problem',
      state_topic: 'panic-pair/devices/AA:BB/availability',
      value_template: SUPERVISION_TEMPLATES.missing,
      payload_on: 'ON',
      payload_off: 'OFF',
      ...shared,
    });
    expect(linked[`homeassistant/sensor/panic-pair/last_heard_${id}/config`]).toEqual({
      name: 'Last heard',
      unique_id: `panic_pair_panic-pair_last_heard_${id}`,
      device_class: 'timestamp',
      entity_category: 'diagnostic',
      state_topic: 'panic-pair/devices/AA:BB/supervision',
      value_template: SUPERVISION_TEMPLATES.lastHeard,
      ...shared,
    });
    const battery = parsed(buttonConfigs(hub, { deviceId: 'AA:BB', customerId: 42, state: 'linked', battery: 15 }))[`homeassistant/sensor/panic-pair/battery_${id}/config`];
    expect(battery).toEqual({
      name: 'Battery',
      unique_id: `panic_pair_panic-pair_battery_${id}`,
      device_class: 'battery',
      unit_of_measurement: '%',
      state_class: 'measurement',
      state_topic: 'panic-pair/devices/AA:BB/supervision',
      value_template: SUPERVISION_TEMPLATES.battery,
      ...shared,
    });
    // Not linked: nothing is supervised, so no supervision entity.
    for (const state of ['linking', 'rejected', 'failed'] as const) expect(buttonConfigs(hub, { deviceId: 'AA:BB', customerId: 42, state, battery: 15 }).size).toBe(1);
    // Every topic a button may have, the battery's included, is held: never cleared as naming nothing.
    expect([...heldConfigTopics(hub, [{ deviceId: 'AA:BB', customerId: 42 }])]).toEqual(buttonConfigTopics(hub, 'AA:BB'));
    expect(buttonConfigTopics(hub, 'AA:BB').sort()).toEqual([...buttonConfigs(hub, { deviceId: 'AA:BB', customerId: 42, state: 'linked', battery: 15, authenticated: true }).keys()].sort());
  });

  it('give a keyed button a tamper binary_sensor "Imitated" on its supervision topic, and an unkeyed one none', () => {
    const id = discoveryId('AA:BB');
    const topic = `homeassistant/binary_sensor/panic-pair/imitated_${id}/config`;
    const keyed = parsed(buttonConfigs(hub, { deviceId: 'AA:BB', customerId: 42, state: 'linked', battery: null, authenticated: true }));
    expect(keyed[topic]).toMatchObject({
      name: 'Imitated',
      unique_id: `panic_pair_panic-pair_imitated_${id}`,
      device_class: 'tamper',
      state_topic: 'panic-pair/devices/AA:BB/supervision',
      value_template: SUPERVISION_TEMPLATES.imitated,
      payload_on: 'ON',
      payload_off: 'OFF',
    });
    expect(parsed(buttonConfigs(hub, { deviceId: 'AA:BB', customerId: 42, state: 'linked', battery: null, authenticated: false }))[topic]).toBeUndefined();
  });

  it('keep the entities of two buttons apart even when one id ends as another entity’s name would', () => {
    const rows = ['X', 'X_missing', 'X_last_heard', 'X_battery', 'missing_X'].map((deviceId) => ({ deviceId, customerId: 42, state: 'linked' as const, battery: 50 }));
    const configs = desiredConfigs(hub, rows);
    expect(configs.size).toBe(3 + 4 * rows.length);
    expect(new Set(Object.values(parsed(configs)).map((config) => config.unique_id)).size).toBe(configs.size);
  });

  it('give two hubs on one broker different topics and unique ids, each hub only its own under its filter', () => {
    const other: HubIdentity = { ...hub, prefix: 'upstairs/panic-pair' };
    const records = [{ deviceId: 'B1', customerId: 42, state: 'linked' as const, battery: 80 }];
    const mine = desiredConfigs(hub, records);
    const theirs = desiredConfigs(other, records);
    const ids = (configs: Map<string, string>) => Object.values(parsed(configs)).map((config) => config.unique_id);
    expect(ids(mine).filter((id) => ids(theirs).includes(id))).toEqual([]);
    for (const topic of mine.keys()) {
      expect(topic).toMatch(/^homeassistant\/(binary_sensor|sensor|update)\/[a-zA-Z0-9_-]+\/[a-zA-Z0-9_-]+\/config$/);
      expect(topicMatches(hubConfigFilter(hub), topic)).toBe(true);
      expect(topicMatches(hubConfigFilter(other), topic)).toBe(false);
    }
    for (const topic of theirs.keys()) expect(topicMatches(hubConfigFilter(hub), topic)).toBe(false);
  });
});

describe('the plan against the retained configs', () => {
  const desired = desiredConfigs(hub, [{ deviceId: 'B1', customerId: 42 }]);

  it('publishes nothing when the broker already holds the same bytes', () => {
    expect(planDiscovery(desired, new Map(desired))).toEqual({ publish: [], clear: [] });
  });

  it('publishes what is missing or different and clears what names nothing held', () => {
    const [first, second] = [...desired.keys()];
    const stale = 'homeassistant/sensor/panic-pair/button_GONE/config';
    const retained = new Map([[first!, desired.get(first!)!], [second!, '{"old":true}'], [stale, '{}']]);
    const plan = planDiscovery(desired, retained);
    expect(plan.publish.map(([topic]) => topic)).toEqual([...desired.keys()].filter((topic) => topic !== first));
    expect(plan.clear).toEqual([stale]);
  });

  it('publishes everything when forced (Home Assistant came back)', () => {
    expect(planDiscovery(desired, new Map(desired), true).publish).toEqual([...desired]);
  });

  it('keeps what is held though not published now (a battery sensor while the reading is unknown)', () => {
    const battery = 'homeassistant/sensor/panic-pair/battery_B1/config';
    const retained = new Map([...desired, [battery, '{"name":"Battery"}']]);
    expect(planDiscovery(desired, retained, false, heldConfigTopics(hub, [{ deviceId: 'B1', customerId: 42 }]))).toEqual({ publish: [], clear: [] });
    expect(planDiscovery(desired, retained).clear).toEqual([battery]);
  });
});

describe('the templates, rendered by Jinja2 as Home Assistant renders them', () => {
  const entitled = (value: boolean | string) => JSON.stringify({ customerId: 42, entitled: value, checkedAt: '2026-01-01T00:00:00.000Z' });
  const state = (word: string, linkId?: number) => JSON.stringify({ state: word, ...(linkId === undefined ? {} : { linkId }), at: '2026-01-01T00:00:00.000Z' });

  it('turn the payloads the daemon publishes into what Home Assistant shows', () => {
    const jobs = [
      { template: TEMPLATES.entitled, payload: entitled(true) },
      { template: TEMPLATES.entitled, payload: entitled(false) },
      // Fail closed: only a JSON true is entitled.
      { template: TEMPLATES.entitled, payload: entitled('true') },
      { template: TEMPLATES.entitled, payload: '{}' },
      ...LINK_STATES.map((word) => ({ template: TEMPLATES.linkState, payload: state(word) })),
      { template: TEMPLATES.linkState, payload: state('exploded') },
      { template: JSON.parse(buttonConfigs(hub, { deviceId: 'B1', customerId: 42 }).values().next().value!).json_attributes_template as string, payload: state('linked', 17) },
      { template: JSON.parse(buttonConfigs(hub, { deviceId: 'B1', customerId: 7 }).values().next().value!).json_attributes_template as string, payload: state('linking') },
    ];
    const rendered = renderTemplates(jobs);
    const binary = { payload_on: 'ON', payload_off: 'OFF' };
    expect(rendered.slice(0, 4).map((value) => binarySensorState(value, binary))).toEqual(['on', 'off', 'off', 'off']);
    expect(rendered.slice(4, 8).map((value) => enumSensorState(value, LINK_STATES))).toEqual([...LINK_STATES]);
    expect(enumSensorState(rendered[8]!, LINK_STATES)).toBeNull();
    expect(JSON.parse(rendered[9]!)).toEqual({ customer_id: 42, link_id: 17 });
    expect(JSON.parse(rendered[10]!)).toEqual({ customer_id: 7, link_id: null });
  });

  it('show Missing on while missing and off while online, the battery, and the last heard time; unknown for anything else', () => {
    const availability = (state: string) => JSON.stringify({ state });
    const supervision = (lastHeard: string | null, battery: number | null) => JSON.stringify({ supervision: 'online', lastHeard, battery, batteryLow: false });
    const rendered = renderTemplates([
      { template: SUPERVISION_TEMPLATES.missing, payload: availability('offline') },
      { template: SUPERVISION_TEMPLATES.missing, payload: availability('online') },
      // Cleared (an unsupervised button), or anything else: unknown, not a stale on or off.
      { template: SUPERVISION_TEMPLATES.missing, payload: '' },
      { template: SUPERVISION_TEMPLATES.missing, payload: availability('sleeping') },
      { template: SUPERVISION_TEMPLATES.battery, payload: supervision('2026-11-26T09:14:00.000Z', 15) },
      { template: SUPERVISION_TEMPLATES.battery, payload: supervision(null, null) },
      { template: SUPERVISION_TEMPLATES.lastHeard, payload: supervision('2026-11-26T09:14:00.000Z', 15) },
      { template: SUPERVISION_TEMPLATES.lastHeard, payload: supervision(null, null) },
      { template: SUPERVISION_TEMPLATES.lastHeard, payload: '' },
    ]);
    const binary = { payload_on: 'ON', payload_off: 'OFF' };
    expect(rendered.slice(0, 4).map((value) => binarySensorState(value, binary))).toEqual(['on', 'off', null, null]);
    // Home Assistant's word for unknown, in a binary_sensor as in a sensor: PAYLOAD_NONE.
    expect(rendered.slice(2, 4)).toEqual(['None', 'None']);
    expect(rendered.slice(4)).toEqual(['15', 'None', '2026-11-26T09:14:00.000Z', 'None', 'None']);
  });

  it('show Imitated on while a keyed button is imitated, off otherwise, unknown without the word', () => {
    const supervision = (imitated?: boolean) => JSON.stringify({ supervision: 'online', lastHeard: null, battery: null, batteryLow: false, ...(imitated === undefined ? {} : { imitated }) });
    const rendered = renderTemplates([true, false, undefined].map((imitated) => ({ template: SUPERVISION_TEMPLATES.imitated, payload: supervision(imitated) })).concat([{ template: SUPERVISION_TEMPLATES.imitated, payload: '' }]));
    expect(rendered.map((value) => binarySensorState(value, { payload_on: 'ON', payload_off: 'OFF' }))).toEqual(['on', 'off', null, null]);
  });

  it("show the hub's software: the running version, and while a rollback stands the version rolled back from, with why", () => {
    const health = (version: string, update?: unknown) =>
      JSON.stringify({
        version, healthy: true, problems: [], ble: 'scanning', mqtt: 'connected', devices: { total: 0, linked: 0, linking: 0, rejected: 0, failed: 0 },
        buttons: { linked: 0, online: 0, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 }, uptimeSeconds: 5, ...(update === undefined ? {} : { update }), at: '2026-11-29T04:05:00.000Z',
      });
    const at = '2026-11-29T04:00:00.000Z';
    const reason = "not ready within 150 s: <it's> \"quoted\" & more";
    const rendered = renderTemplates(
      [
        health('0.3.1', null), // no update recorded
        health('0.3.1'), // a daemon too old to say
        health('0.3.2', { state: 'probation', version: '0.3.2', previous: '0.3.1', reason: null, at }),
        health('0.3.2', { state: 'kept', version: '0.3.2', previous: '0.3.1', reason: null, at }),
        health('0.3.1', { state: 'rolled-back', version: '0.3.2', previous: '0.3.1', reason, at }),
        health('0.3.1', { state: 'rolled-back', version: '0.3.2', previous: '0.3.1', reason: null, at }),
        health('0.3.1', { state: 'rolled-back', version: `0.3.2+${'x'.repeat(58)}`, previous: '0.3.1', reason: 'y'.repeat(200), at }),
        '', // the health cleared
        'not json',
      ].map((payload) => ({ template: UPDATE_TEMPLATE, payload })),
    );
    const fields = rendered.map(updateEntityFields);
    const current = (version: string) => ({ installed_version: version, latest_version: version, release_summary: null });
    expect(fields.slice(0, 4)).toEqual([current('0.3.1'), current('0.3.1'), current('0.3.2'), current('0.3.2')]);
    expect(fields[4]).toEqual({ installed_version: '0.3.1', latest_version: '0.3.2', release_summary: `update to 0.3.2 rolled back to 0.3.1: ${reason}` });
    expect(fields[5]).toEqual({ installed_version: '0.3.1', latest_version: '0.3.2', release_summary: 'update to 0.3.2 rolled back to 0.3.1' });
    // Home Assistant keeps 255 characters of a summary.
    expect(fields[6]!.release_summary).toBe(`update to 0.3.2+${'x'.repeat(58)} rolled back to 0.3.1: ${'y'.repeat(200)}`.slice(0, 255));
    expect(fields.slice(7)).toEqual([null, null]);
  });

  it('show the hub connected while it runs and disconnected after it stops', () => {
    const connectivity = JSON.parse(hubConfigs(hub).get('homeassistant/binary_sensor/panic-pair/connectivity/config')!) as { payload_on: string; payload_off: string };
    expect(binarySensorState('online', connectivity)).toBe('on');
    expect(binarySensorState('offline', connectivity)).toBe('off');
  });
});
