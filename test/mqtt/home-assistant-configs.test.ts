import { describe, expect, it } from 'vitest';
import {
  buttonConfigs,
  buttonConfigTopics,
  desiredConfigs,
  discoveryId,
  hubConfigFilter,
  hubConfigs,
  LINK_STATES,
  TEMPLATES,
  type HubIdentity,
} from '../../src/mqtt/home-assistant-configs.js';
import { planDiscovery } from '../../src/mqtt/home-assistant-plan.js';
import { topicMatches } from '../../src/mqtt/subscriptions.js';
import { binarySensorState, enumSensorState, renderTemplates } from '../support/home-assistant-render.js';

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
  it('describe the hub: connectivity on the status topic, and Entitled', () => {
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
    });
  });

  it('describe a button with a sanitised object id and its real id in the state topic', () => {
    const configs = parsed(buttonConfigs(hub, { deviceId: 'AA:BB', customerId: 42 }));
    const topic = `homeassistant/sensor/panic-pair/button_${discoveryId('AA:BB')}/config`;
    expect(Object.keys(configs)).toEqual([topic]);
    expect(buttonConfigTopics(hub, 'AA:BB')).toEqual([topic]);
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

  it('give two hubs on one broker different topics and unique ids, each hub only its own under its filter', () => {
    const other: HubIdentity = { ...hub, prefix: 'upstairs/panic-pair' };
    const records = [{ deviceId: 'B1', customerId: 42 }];
    const mine = desiredConfigs(hub, records);
    const theirs = desiredConfigs(other, records);
    const ids = (configs: Map<string, string>) => Object.values(parsed(configs)).map((config) => config.unique_id);
    expect(ids(mine).filter((id) => ids(theirs).includes(id))).toEqual([]);
    for (const topic of mine.keys()) {
      expect(topic).toMatch(/^homeassistant\/(binary_sensor|sensor)\/[a-zA-Z0-9_-]+\/[a-zA-Z0-9_-]+\/config$/);
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

  it('show the hub connected while it runs and disconnected after it stops', () => {
    const connectivity = JSON.parse(hubConfigs(hub).get('homeassistant/binary_sensor/panic-pair/connectivity/config')!) as { payload_on: string; payload_off: string };
    expect(binarySensorState('online', connectivity)).toBe('on');
    expect(binarySensorState('offline', connectivity)).toBe('off');
  });
});
