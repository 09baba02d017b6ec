// BLE gateways' BTtoMQTT reports (Theengs, OpenMQTTGateway; CONTRACT 5): the parser, the gateway
// name taken from the topic, and the source through the BLE profiles. The input's first line is
// the topic, the rest the payload.
import { profilesSchema } from '../../../dist/config/profile.js';
import { createCounters } from '../../../dist/daemon/counters.js';
import { gatewayName, parseGatewayMessage, startBleGatewaySource } from '../../../dist/discovery/ble-gateway.js';
import { ProfileMatcher } from '../../../dist/discovery/profiles.js';
import { isValidDeviceId } from '../../../dist/discovery/sighting.js';
import { silentLogger } from '../../../dist/log/logger.js';
import { expect, expectCounted, fakeConnection, json, tally } from './verdict.mjs';

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
export const outcomes = tally();

export function fuzz(data) {
  const newline = data.indexOf(0x0a);
  const topic = newline === -1 ? 'home/gw1/BTtoMQTT/C4649F5E9454' : data.subarray(0, newline).toString('utf8');
  const payload = newline === -1 ? data : data.subarray(newline + 1);
  const name = gatewayName(topic);
  expect(typeof name === 'string' && name.length > 0 && name.length <= 48, 'a gateway name of 1 to 48 characters');
  const report = parseGatewayMessage(payload);
  const before = { ...counters };
  delivered = [];
  broker.publish(topic, payload);
  const invalid = 'invalid' in report || counters.dropped > before.dropped;
  expectCounted(counters, before, invalid, 'gateway message');
  expect(delivered.length <= 1, 'at most one sighting');
  for (const sighting of delivered) {
    expect(isValidDeviceId(sighting.deviceId), 'a valid deviceId');
    expect(sighting.source === `ble-gateway:${name}`, 'the source names the gateway');
    expect(sighting.rssi === undefined || (sighting.rssi >= -127 && sighting.rssi <= 20), 'rssi in range');
  }
  if (delivered.length === 1) outcomes.accepted();
  else if (invalid) outcomes.rejected();
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
  ];
}
