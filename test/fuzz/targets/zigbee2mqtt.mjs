// Zigbee2MQTT bridge events (CONTRACT 5): the parser, and the source through a Zigbee profile.
import { profilesSchema } from '../../../dist/config/profile.js';
import { createCounters } from '../../../dist/daemon/counters.js';
import { ProfileMatcher } from '../../../dist/discovery/profiles.js';
import { isValidDeviceId } from '../../../dist/discovery/sighting.js';
import { parseBridgeEvent, startZigbeeSource } from '../../../dist/discovery/zigbee2mqtt.js';
import { silentLogger } from '../../../dist/log/logger.js';
import { expect, expectCounted, fakeConnection, json, tally } from './verdict.mjs';

const broker = fakeConnection();
const counters = createCounters();
const matcher = new ProfileMatcher(profilesSchema.parse([{ name: 'sos', match: { zigbeeModel: 'SOS-1' }, deviceId: { from: 'ieeeAddress' }, deviceTypeId: 3 }]));
let delivered = [];
startZigbeeSource({ connection: broker.connection, prefix: 'zigbee2mqtt', matcher, counters, logger: silentLogger(), onSighting: (s) => delivered.push(s), now: () => 1 });
export const outcomes = tally();

export function fuzz(data) {
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
  ];
}
