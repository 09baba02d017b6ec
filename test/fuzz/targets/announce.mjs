// MQTT announcements (`<prefix>/announce`): the parser, and the source that counts.
import { createCounters } from '../../../dist/status/counters.js';
import { parseAnnouncement, startAnnounceSource } from '../../../dist/discovery/announce.js';
import { isValidDeviceId } from '../../../dist/device-id.js';
import { silentLogger } from '../../../dist/log/logger.js';
import { expect, expectBattery, expectCounted, fakeConnection, json, tally } from './verdict.mjs';

const broker = fakeConnection();
const counters = createCounters();
let delivered = [];
startAnnounceSource({ connection: broker.connection, prefix: 'panic', counters, logger: silentLogger(), onSighting: (s) => delivered.push(s), now: () => 1 });
export const outcomes = tally();

export function fuzz(data) {
  const result = parseAnnouncement(data, 1);
  const valid = !('invalid' in result);
  if (valid) {
    expect(isValidDeviceId(result.deviceId), 'an accepted announcement has a valid deviceId');
    expect(result.source === 'mqtt' && result.at === 1, 'an accepted announcement is from mqtt, at the time given');
    expect(result.rssi === undefined || (result.rssi >= -127 && result.rssi <= 20), 'rssi in range');
    expect(result.deviceTypeId === undefined || Number.isInteger(result.deviceTypeId), 'deviceTypeId an integer');
    expectBattery(result);
    expect(Object.keys(result).every((key) => ['deviceId', 'source', 'at', 'rssi', 'deviceTypeId', 'battery', 'batteryLow'].includes(key)), 'only named fields');
  } else {
    expect(typeof result.invalid === 'string' && result.invalid.length > 0, 'a rejection says why');
  }
  const before = { ...counters };
  delivered = [];
  broker.publish('panic/announce', data);
  expectCounted(counters, before, !valid, 'announcement');
  expect(delivered.length === (valid ? 1 : 0), 'one sighting for an accepted announcement, none otherwise');
  if (valid) outcomes.accepted();
  else outcomes.rejected();
}

export function seeds() {
  return [
    '{"deviceId":"7F3A9C","rssi":-52}',
    '{"deviceId":"7F3A9C","deviceTypeId":3,"rssi":-60}',
    '{"deviceId":"a.b_c:d-e"}',
    '{ "deviceId": "7F3A9C", "battery": 80, "customerId": 42 }',
    '{"deviceId":"","rssi":500}',
    '{"__proto__":{"x":1},"deviceId":"X"}',
    '[1,2]',
    'null',
    '{"deviceId":"7F3A9C","rssi":-0}',
  ].map((text) => Buffer.from(text)).concat([json({ deviceId: 'x'.repeat(65) }), Buffer.alloc(5000, 0x20)]);
}
