// HCI events as the kernel delivers them, through noble's own HCI and GAP parsing (the
// VirtualHciSocket plays the controller) and the BLE source. Each input is one LE Meta event, after its event code; an LE
// advertising report either reaches the source (counted in `announcements`), or is an event noble
// drops as malformed (counted in `dropped`), or is an event that is no report at all (ignored).
// Seeds hold BTHome v2 service data (UUID 0xFCD2) beside the default profile's name.
import { profilesSchema } from '../../../dist/config/profile.js';
import { createCounters } from '../../../dist/status/counters.js';
import { startBleSource } from '../../../dist/discovery/ble.js';
import { loadNoble } from '../../../dist/discovery/noble-loader.js';
import { ProfileMatcher } from '../../../dist/discovery/profiles.js';
import { isValidDeviceId } from '../../../dist/device-id.js';
import { isAdvertisingReport, VirtualHciSocket } from '../../../dist/discovery/virtual-hci-socket.js';
import { captureConsole } from '../../../dist/log/console-capture.js';
import { silentLogger } from '../../../dist/log/logger.js';
import { advertisingReport } from './btsnoop.mjs';
import { expect, expectBattery, tally } from './verdict.mjs';

// As in the daemon: what noble prints goes to the (here silent) log.
captureConsole(silentLogger());
const socket = new VirtualHciSocket();
const radio = loadNoble({ hciDevice: 0, socket });
const counters = createCounters();
let delivered = [];
const source = startBleSource({
  radio,
  matcher: new ProfileMatcher(
    profilesSchema.parse([
      { name: 'panic-button', match: { namePrefix: 'PANIC-' }, deviceId: { from: 'nameSuffix' } },
      { name: 'bthome', match: { serviceUuid: 'fcd2' }, deviceId: { from: 'address' } },
      { name: 'fob', match: { companyId: 0x0590 }, deviceId: { from: 'manufacturerData', offset: 2, length: 4 } },
    ]),
  ),
  source: 'ble',
  adapter: 'hci0',
  counters,
  logger: silentLogger(),
  onSighting: (sighting) => delivered.push(sighting),
  // noble keeps every address it hears; the source forgets them past this, checked this often.
  maxKnownDevices: 256,
  watchdogMs: 1_000,
});
radio.open();
// noble powers on and starts scanning through the socket's answers, a few turns of the event loop.
for (let waited = 0; source.condition().state !== "scanning"; waited += 10) {
  if (waited > 10_000) throw new Error(`noble did not start scanning: ${JSON.stringify(source.condition())}`);
  await new Promise((resolve) => setTimeout(resolve, 10));
}
export const outcomes = tally();
const KNOWN_LIMIT = 256 + 64;

export function fuzz(data) {
  // The H4 type byte and LE Meta event code, then the event as the fuzzer made it: the events a
  // scan brings, advertising reports above all (a controller's other events are no outside input).
  const packet = Buffer.concat([Buffer.of(0x04, 0x3e), data]);
  const before = { ...counters };
  delivered = [];
  socket.deliver(packet);
  const heard = counters.announcements - before.announcements;
  const dropped = counters.dropped - before.dropped;
  // One event may carry several reports (and noble reports a device again on its scan response).
  expect(delivered.length <= heard, 'no more sightings than reports heard');
  // A report whose framing lies is dropped whole before noble sees it; a sound one is heard, or
  // held by noble until the device's scan response (a connectable or scannable advertisement).
  // Each report heard becomes one sighting, one counted rejection (a profile without a usable
  // deviceId) or nothing (not a button).
  if (isAdvertisingReport(packet)) expect(heard === 0 ? dropped <= 1 : delivered.length + dropped <= heard, `an advertising report is heard or dropped whole: heard ${heard}, dropped ${dropped}`);
  else expect(dropped <= 1 && heard === 0, 'an event that is no report is not heard, and dropped at most once');
  for (const sighting of delivered) {
    expect(isValidDeviceId(sighting.deviceId) && sighting.source === 'ble', 'a valid sighting');
    expectBattery(sighting);
  }
  expect(source.condition().state === 'scanning', 'still scanning');
  if (radio.knownDevices() > KNOWN_LIMIT) radio.forgetDevices();
  if (delivered.length > 0) outcomes.accepted();
  else if (dropped > 0) outcomes.rejected();
  else outcomes.ignored();
}

export function seeds() {
  const report = advertisingReport();
  const extended = Buffer.from(report);
  // A scan response of the same device, and a report of two devices in one event.
  const scanResponse = Buffer.from(report);
  scanResponse[4] = 0x04;
  const two = Buffer.concat([Buffer.from([0x3e, 0, 0x02, 0x02]), report.subarray(4, report.length - 0), report.subarray(4)]);
  two[1] = two.length - 2;
  extended[2] = 0x0d;
  const manufacturer = Buffer.from([0x3e, 0x1a, 0x02, 0x01, 0x03, 0x01, 1, 2, 3, 4, 5, 6, 0x0e, 0x02, 0x01, 0x06, 0x0a, 0xff, 0x90, 0x05, 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0xb0]);
  return [report, scanResponse, two, extended, manufacturer, Buffer.from([0x3e, 0x01, 0x02])].map((event) => event.subarray(1));
}
