import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profilesSchema, type Profile } from '../../src/config/profile.js';
import { createCounters } from '../../src/status/counters.js';
import { ProfileMatcher } from '../../src/discovery/profiles.js';
import type { Sighting } from '../../src/sighting.js';
import { parseBridgeEvent, startZigbeeSource } from '../../src/discovery/zigbee2mqtt.js';
import { connectMqtt } from '../../src/mqtt/connection.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { captureLog } from '../support/log-capture.js';
import { publishOnce, untilSubscribed } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// Zigbee2MQTT bridge events, in the shapes its log shows (fixtures/mqtt-payloads.md), varied.

const IEEE = '0x00124b00088ccd58';
const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const joined = { data: { friendly_name: IEEE, ieee_address: IEEE }, type: 'device_joined' };
const started = { data: { friendly_name: IEEE, ieee_address: IEEE, status: 'started' }, type: 'device_interview' };
const interviewed = (definition: unknown, extra: Record<string, unknown> = {}) => ({
  data: { friendly_name: IEEE, ieee_address: IEEE, status: 'successful', supported: true, definition, ...extra },
  type: 'device_interview',
});
const SOS = { model: 'SOS-1', vendor: 'Acme', description: 'Panic button', exposes: [{ type: 'enum', name: 'action' }], options: [] };

describe('parseBridgeEvent', () => {
  it.each<[string, unknown, unknown]>([
    ['a successful interview', interviewed(SOS), { joined: { ieeeAddress: IEEE, definition: { model: 'SOS-1', vendor: 'Acme' } } }],
    ['an IEEE address in upper case is written in lower case', interviewed(SOS, { ieee_address: '0x00124B00088CCD58' }), { joined: { ieeeAddress: IEEE, definition: { model: 'SOS-1', vendor: 'Acme' } } }],
    ['device_joined', joined, { ignored: 'device_joined' }],
    ['an interview started', started, { ignored: 'device_interview started' }],
    ['an interview failed', { ...started, data: { ...started.data, status: 'failed' } }, { ignored: 'device_interview failed' }],
    ['an unsupported device', interviewed(null, { supported: false }), { ignored: 'device_interview of an unsupported device' }],
    ['device_leave', { data: { ieee_address: IEEE }, type: 'device_leave' }, { ignored: 'device_leave' }],
  ])('%s', (_name, payload, expected) => {
    expect(parseBridgeEvent(json(payload))).toEqual(expected);
  });

  it.each<[string, Buffer, string]>([
    ['not JSON', Buffer.from('online'), 'not JSON'],
    ['not an object', json('device_joined'), 'not a JSON object'],
    ['no type', json({ data: {} }), 'type must be a string'],
    ['no data', json({ type: 'device_joined' }), 'data must be an object'],
    ['a bad IEEE address', json({ ...interviewed(SOS), data: { ...interviewed(SOS).data, ieee_address: '0x12' } }), 'data.ieee_address must be 0x and 16 hex digits'],
    ['no status', json({ type: 'device_interview', data: { ieee_address: IEEE } }), 'data.status must be a string'],
    ['a definition that is not an object', json(interviewed('SOS-1')), 'data.definition must be an object'],
    ['a model that is not text', json(interviewed({ model: 7, vendor: 'Acme' })), 'data.definition.model and vendor must be strings'],
  ])('refuses %s', (_name, payload, reason) => {
    expect(parseBridgeEvent(payload)).toEqual({ invalid: reason });
  });
});

describe('startZigbeeSource against a real broker', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.stop());

  it('turns a matching join into a sighting with the IEEE address, ignores the rest and drops broken events', async () => {
    const profiles = profilesSchema.parse([{ name: 'sos', match: { zigbeeModel: 'SOS-1' }, deviceId: { from: 'ieeeAddress' }, deviceTypeId: 3 }]) as Profile[];
    const log = captureLog();
    const counters = createCounters();
    const sightings: Sighting[] = [];
    const connection = connectMqtt({ url: broker.url, prefix: 'zb-test', logger: log.logger, reconnectDelay: () => 50 });
    const source = startZigbeeSource({ connection, prefix: 'z2m', matcher: new ProfileMatcher(profiles), counters, logger: log.logger, onSighting: (s) => sightings.push(s), now: () => 2_000 });
    try {
      await waitFor(() => connection.state() === 'connected', { what: 'the connection' });
      await untilSubscribed(broker.url, 'z2m/bridge/event', JSON.stringify(joined), counters);
      const before = { ...counters };
      const bulb = { model: 'LED1545G12', vendor: 'IKEA', description: 'bulb', exposes: [], options: [] };
      await publishOnce(broker.url, 'z2m/bridge/event', [json(joined), json(started), json(interviewed(bulb)), json(interviewed(SOS)), '{"type":', json({ type: 'device_interview' })]);
      await publishOnce(broker.url, 'z2m/bridge/state', ['{"state":"online"}']);
      await waitFor(() => counters.announcements - before.announcements === 6, { what: 'six bridge events' });
      expect(sightings).toEqual([{ deviceId: IEEE, source: 'zigbee2mqtt', deviceTypeId: 3, at: 2_000, profile: expect.any(String) }]);
      expect(counters.dropped - before.dropped).toBe(2);
      expect(log.lines.find((line) => line.msg === 'a Zigbee button joined')).toMatchObject({ deviceId: IEEE, profile: 'sos', model: 'SOS-1' });
    } finally {
      source.stop();
      await connection.close();
    }
  });
});
