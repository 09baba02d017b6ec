// Zigbee2MQTT: bridge events through a Zigbee profile, and, for an input whose
// first line is a topic under zigbee2mqtt/, whatever else the source hears: the device list, the
// bridge's state, a known button's own reports (with their battery).
import { profilesSchema } from '../../../dist/config/profile.js';
import { createCounters } from '../../../dist/status/counters.js';
import { ProfileMatcher } from '../../../dist/discovery/profiles.js';
import { isValidDeviceId } from '../../../dist/device-id.js';
import { parseBridgeEvent, startZigbeeSource } from '../../../dist/discovery/zigbee2mqtt.js';
import { silentLogger } from '../../../dist/log/logger.js';
import { expect, expectBattery, expectCounted, fakeConnection, json, tally } from './verdict.mjs';

const broker = fakeConnection();
const counters = createCounters();
const matcher = new ProfileMatcher(profilesSchema.parse([{ name: 'sos', match: { zigbeeModel: 'SOS-1' }, deviceId: { from: 'ieeeAddress' }, deviceTypeId: 3 }]));
let delivered = [];
startZigbeeSource({ connection: broker.connection, prefix: 'zigbee2mqtt', matcher, counters, logger: silentLogger(), onSighting: (s) => delivered.push(s), onLiveness: () => undefined, now: () => 1 });
/** A button the source knows before any input: its reports are heard on zigbee2mqtt/sos button. */
const KNOWN = [{ ieee_address: '0x00124b00088ccd58', friendly_name: 'sos button', definition: { model: 'SOS-1', vendor: 'Acme' } }];
broker.publish('zigbee2mqtt/bridge/devices', json(KNOWN), true);
export const outcomes = tally();

export function fuzz(data) {
  const newline = data.indexOf(0x0a);
  const topic = newline > 0 ? data.subarray(0, newline).toString('latin1') : '';
  if (topic.startsWith('zigbee2mqtt/') && topic !== 'zigbee2mqtt/bridge/event') return otherTopic(topic, data.subarray(newline + 1));

  const event = parseBridgeEvent(data);
  const kinds = ['joined', 'ignored', 'invalid'].filter((kind) => kind in event);
  expect(kinds.length === 1, `one verdict, not ${kinds.join(', ')}`);
  if ('joined' in event) expect(/^0x[0-9a-f]{16}$/.test(event.joined.ieeeAddress), 'a joined device has a lower-case IEEE address');
  const before = { ...counters };
  delivered = [];
  broker.publish('zigbee2mqtt/bridge/event', data);
  // A join that no profile matches, or an ignored event, is counted and not dropped.
  expectCounted(counters, before, 'invalid' in event, 'bridge event');
  for (const sighting of delivered) expect(isValidDeviceId(sighting.deviceId) && sighting.source === 'zigbee2mqtt', 'a valid sighting');
  expect(delivered.length <= 1, 'at most one sighting');
  if (delivered.length === 1) outcomes.accepted();
  else if ('invalid' in event) outcomes.rejected();
  else outcomes.ignored();
}

/** Anything else under the base topic: counted once where a source listens, at most one sighting. */
function otherTopic(topic, payload) {
  const before = { ...counters };
  delivered = [];
  const heard = broker.heard(topic);
  broker.publish(topic, payload, payload.length > 0 && payload[0] === 0x72 /* 'r': as retained */);
  const counted = counters.announcements - before.announcements;
  expect(counted === (heard ? 1 : 0), `${topic}: announcements moved by ${counted}`);
  expect(counters.dropped - before.dropped <= counted, `${topic}: dropped at most what was counted`);
  expect(delivered.length <= 1, 'at most one sighting');
  for (const sighting of delivered) {
    expect(isValidDeviceId(sighting.deviceId) && sighting.source === 'zigbee2mqtt', 'a valid sighting');
    expectBattery(sighting);
  }
  // The list is the hub's view of the network: put the known button back for the next input.
  if (topic === 'zigbee2mqtt/bridge/devices') broker.publish('zigbee2mqtt/bridge/devices', json(KNOWN), true);
  if (delivered.length === 1) outcomes.accepted();
  else if (counters.dropped > before.dropped) outcomes.rejected();
  else outcomes.ignored();
}

export function seeds() {
  const interview = (data) => json({ type: 'device_interview', data });
  return [
    interview({ friendly_name: 'sos', ieee_address: '0x00124B00088CCD58', status: 'successful', supported: true, definition: { model: 'SOS-1', vendor: 'Acme', exposes: [] } }),
    interview({ ieee_address: '0x00124b00088ccd58', status: 'successful', definition: null }),
    interview({ ieee_address: '0x00124b00088ccd58', status: 'started' }),
    interview({ ieee_address: '0x00124b00088ccd58', status: 'successful', definition: { model: 7 } }),
    json({ type: 'device_joined', data: { ieee_address: '0x00124b00088ccd58' } }),
    json({ type: 'device_leave', data: {} }),
    Buffer.from('{"type":1}'),
    Buffer.from('not json'),
    Buffer.concat([Buffer.from('zigbee2mqtt/sos button\n'), json({ battery: 15, battery_low: true, linkquality: 90, action: 'emergency' })]),
    Buffer.concat([Buffer.from('zigbee2mqtt/sos button\n'), json({ battery: 180 })]),
    Buffer.from('zigbee2mqtt/bridge/state\n{"state":"offline"}'),
    Buffer.from('zigbee2mqtt/bridge/state\nonline'),
    Buffer.concat([Buffer.from('zigbee2mqtt/bridge/devices\n'), json([...KNOWN, { ieee_address: '0x1', friendly_name: 'a/b', definition: null }])]),
  ];
}
