// BLE gateways' BTtoMQTT reports (Theengs, OpenMQTTGateway): the parser, the gateway
// name taken from the topic, and the source through the BLE profiles. The input's first line is
// the topic, the rest the payload. A topic ending in /LWT is a gateway's last will.
import { profilesSchema } from '../../../dist/config/profile.js';
import { createCounters } from '../../../dist/status/counters.js';
import { gatewayName, parseGatewayMessage, startBleGatewaySource } from '../../../dist/discovery/ble-gateway.js';
import { ProfileMatcher } from '../../../dist/discovery/profiles.js';
import { isValidDeviceId } from '../../../dist/device-id.js';
import { silentLogger } from '../../../dist/log/logger.js';
import { startGatewayWillSource } from '../../../dist/discovery/source-liveness.js';
import { expect, expectBattery, expectCounted, fakeConnection, json, tally } from './verdict.mjs';

const broker = fakeConnection();
const counters = createCounters();
const matcher = new ProfileMatcher(
  profilesSchema.parse([
    { name: 'panic-button', match: { namePrefix: 'PANIC-' }, deviceId: { from: 'nameSuffix' } },
    { name: 'tag', match: { serviceUuid: 'fcd2' }, deviceId: { from: 'address' }, deviceTypeId: 5 },
    { name: 'fob', match: { companyId: 0x0590 }, deviceId: { from: 'manufacturerData', offset: 2, length: 4 } },
  ]),
);
let delivered = [];
startBleGatewaySource({ connection: broker.connection, filter: '+/+/BTtoMQTT/+', matcher, counters, logger: silentLogger(), onSighting: (s) => delivered.push(s), now: () => 1 });
let wills = [];
startGatewayWillSource({ connection: broker.connection, filter: '+/+/BTtoMQTT/+', counters, logger: silentLogger(), onLiveness: (l) => void wills.push(l), now: () => 1 });
export const outcomes = tally();

export function fuzz(data) {
  const newline = data.indexOf(0x0a);
  const topic = newline === -1 ? 'home/gw1/BTtoMQTT/C4649F5E9454' : data.subarray(0, newline).toString('utf8');
  const payload = newline === -1 ? data : data.subarray(newline + 1);
  const name = gatewayName(topic);
  expect(typeof name === 'string' && name.length > 0 && name.length <= 48, 'a gateway name of 1 to 48 characters');
  if (topic.endsWith('/LWT')) return will(topic, payload);
  const report = parseGatewayMessage(payload);
  const before = { ...counters };
  delivered = [];
  broker.publish(topic, payload);
  // A topic the gateway filter does not take never reaches the source: nothing counted, nothing heard.
  if (!broker.heard(topic)) {
    expect(counters.announcements === before.announcements && delivered.length === 0, 'a topic outside the filter is not heard');
    outcomes.ignored();
    return;
  }
  const invalid = 'invalid' in report || counters.dropped > before.dropped;
  expectCounted(counters, before, invalid, 'gateway message');
  expect(delivered.length <= 1, 'at most one sighting');
  for (const sighting of delivered) {
    expect(isValidDeviceId(sighting.deviceId), 'a valid deviceId');
    expect(sighting.source === `ble-gateway:${name}`, 'the source names the gateway');
    expect(sighting.rssi === undefined || (sighting.rssi >= -127 && sighting.rssi <= 20), 'rssi in range');
    expectBattery(sighting);
  }
  if (delivered.length === 1) outcomes.accepted();
  else if (invalid) outcomes.rejected();
  else outcomes.ignored();
}

/** A last will: one liveness word for the gateway named, or one counted rejection. */
function will(topic, payload) {
  const before = { ...counters };
  wills = [];
  const heard = broker.heard(topic);
  broker.publish(topic, payload);
  expect(counters.announcements - before.announcements === (heard ? 1 : 0), 'a will counted once where heard');
  expect(wills.length <= 1, 'at most one liveness word');
  for (const liveness of wills) expect(liveness.source.startsWith('ble-gateway:') && typeof liveness.up === 'boolean', 'a gateway and a word');
  if (wills.length === 1) outcomes.accepted();
  else if (counters.dropped > before.dropped) outcomes.rejected();
  else outcomes.ignored();
}

export function seeds() {
  const at = (topic, value) => Buffer.concat([Buffer.from(`${topic}\n`), json(value)]);
  return [
    at('home/gw1/BTtoMQTT/C4649F5E9454', { id: 'C4:64:9F:5E:94:54', name: 'PANIC-7F3A9C', rssi: -61 }),
    at('home/gw2/BTtoMQTT/A4C138000001', { id: 'A4:C1:38:00:00:01', rssi: -70, servicedatauuid: '0xfcd2', servicedata: '40000115' }),
    at('home/gw2/BTtoMQTT/A4C138000002', { id: 'A4:C1:38:00:00:02', mfid: '9005', manufacturerdata: '9005deadbeef' }),
    at('BTtoMQTT', { id: 'x', servicedatauuid: '0000fcd2-0000-1000-8000-00805f9b34fb' }),
    at('home/gw1/BTtoMQTT/1', { id: '', rssi: 'loud' }),
    Buffer.from('{"id":"C4:64:9F:5E:94:54","manufacturerdata":"zz"}'),
    at('home/gw3/BTtoMQTT/A4C138000003', { id: 'A4:C1:38:00:00:03', name: 'PANIC-B0771E', servicedatauuid: 'fcd2', servicedata: '4001ff', batt: 140 }),
    Buffer.from('home/TheengsGateway/LWT\noffline'),
    Buffer.from('home/gw1/LWT\n  Online \n'),
    Buffer.from('home/gw1/LWT\nmaybe'),
  ];
}
