import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE } from '../../src/config/profile.js';
import { createCounters } from '../../src/status/counters.js';
import { probeBle } from '../../src/check/ble-probe.js';
import { startBleSource, type BleSource } from '../../src/discovery/ble.js';
import { loadNoble } from '../../src/discovery/noble-loader.js';
import { ProfileMatcher } from '../../src/discovery/profiles.js';
import type { Sighting } from '../../src/sighting.js';
import { VirtualHciSocket } from '../../src/discovery/virtual-hci-socket.js';
import { advertisingReportEvent, type AdvertisingReport } from '../support/btsnoop-writer.js';
import { captureLog } from '../support/log-capture.js';
import { waitFor } from '../support/wait.js';
import { buttonReports, phoneReport } from './fixtures/captures.js';

// The BLE source on noble, with the VirtualHciSocket as the controller: noble's own HCI and GAP
// layers parse every report, and adapter states are driven as the kernel would drive them.

const LE_SET_SCAN_ENABLE = 0x200c;
const BUTTON = { id: '7F3A9C', address: 'c4:64:9f:5e:94:54', rssi: -55 };
let running: BleSource | undefined;
afterEach(() => {
  running?.stop();
  running = undefined;
});

function start(
  options: { socket?: VirtualHciSocket; onSighting?: (sighting: Sighting) => void; quietRestartMs?: number; watchdogMs?: number; maxKnownDevices?: number } = {},
) {
  const socket = options.socket ?? new VirtualHciSocket();
  const radio = loadNoble({ hciDevice: 0, socket });
  const counters = createCounters();
  const sightings: Sighting[] = [];
  const log = captureLog();
  const source = startBleSource({
    radio,
    matcher: new ProfileMatcher([DEFAULT_PROFILE]),
    source: 'ble',
    adapter: 'hci0',
    counters,
    logger: log.logger,
    onSighting: options.onSighting ?? ((sighting) => sightings.push(sighting)),
    quietRestartMs: options.quietRestartMs,
    watchdogMs: options.watchdogMs,
    maxKnownDevices: options.maxKnownDevices,
  });
  running = source;
  radio.open();
  const deliver = (...reports: AdvertisingReport[]): boolean[] => reports.map((report) => socket.deliver(Buffer.concat([Buffer.of(0x04), advertisingReportEvent(report)])));
  const scanEnables = (): number[][] => socket.commands().filter((c) => c.opcode === LE_SET_SCAN_ENABLE).map((c) => [...c.parameters]);
  return { socket, radio, source, counters, sightings, log, deliver, scanEnables };
}

const scanning = (source: BleSource) => waitFor(() => source.condition().state === 'scanning', { what: 'the scan to start' });

describe('scanning through noble', () => {
  it('scans with duplicates allowed, and reports a button once its scan response brings the name', async () => {
    const { source, socket, sightings, counters, deliver, scanEnables } = start();
    await scanning(source);
    expect(scanEnables().at(-1)).toEqual([1, 0]);
    expect(socket.filterDuplicates).toBe(false);

    const [advertisement, scanResponse] = buttonReports(BUTTON);
    deliver(advertisement!, phoneReport(1), phoneReport(2));
    expect(sightings).toEqual([]);
    deliver(scanResponse!);
    expect(sightings).toEqual([{ deviceId: '7F3A9C', source: 'ble', rssi: -55, at: expect.any(Number), profile: 'panic-button' }]);

    // Each later advertisement and scan response pair is a sighting with its own RSSI.
    deliver({ ...advertisement!, rssi: -49 }, { ...scanResponse!, rssi: -49 }, { ...advertisement!, rssi: -51 }, { ...scanResponse!, rssi: -51 });
    expect(sightings.map((s) => s.rssi)).toEqual([-55, -49, -51]);
    expect(counters).toMatchObject({ announcements: 5, dropped: 0 });
  });

  it('bounds what noble remembers of devices it heard, and goes on reporting', async () => {
    const { source, radio, sightings, deliver } = start({ watchdogMs: 20, maxKnownDevices: 3 });
    await scanning(source);
    deliver(...[1, 2, 3, 4, 5].map((n) => phoneReport(n)));
    await waitFor(() => radio.knownDevices() === 0, { what: 'noble to forget the phones' });
    deliver(...buttonReports(BUTTON));
    expect(sightings.map((s) => s.deviceId)).toEqual(['7F3A9C']);
  });

  it('counts an advertisement of a profile without a usable deviceId as dropped', async () => {
    const { source, sightings, counters, deliver, log } = start();
    await scanning(source);
    deliver({ address: '11:22:33:44:55:66', type: 'ADV_NONCONN_IND', rssi: -40, data: Buffer.from([0x08, 0x09, ...Buffer.from('PANIC-!!')]) });
    expect(sightings).toEqual([]);
    expect(counters).toMatchObject({ announcements: 1, dropped: 1 });
    expect(log.lines.find((line) => line.msg === 'advertisement matches a profile but has no usable deviceId')).toMatchObject({ profile: 'panic-button' });
  });

  it('counts a report whose lengths lie as dropped, where noble would only have printed a warning', async () => {
    // Found by the hci fuzz target (test/fuzz/hci/).
    const { source, socket, counters, log } = start();
    await scanning(source);
    const event = Buffer.concat([Buffer.of(0x04), advertisingReportEvent({ address: '11:22:33:44:55:66', type: 'ADV_NONCONN_IND', rssi: -40, data: Buffer.from([0x08, 0x09, ...Buffer.from('PANIC-01')]) })]);
    event[13] = 200; // the report's data length, past the event's end
    socket.deliver(event);
    expect(counters).toMatchObject({ announcements: 0, dropped: 1 });
    expect(log.lines.find((line) => line.msg === 'an HCI packet noble could not parse was dropped')).toMatchObject({ error: expect.stringMatching(/announces more data than the event holds/) });
  });

  it('survives a handler that throws: counted, and the next report still arrives', async () => {
    let calls = 0;
    const { source, counters, deliver } = start({
      onSighting: () => {
        calls += 1;
        if (calls === 1) throw new Error('engine bug');
      },
    });
    await scanning(source);
    const [advertisement, scanResponse] = buttonReports(BUTTON);
    deliver(advertisement!, scanResponse!, advertisement!, scanResponse!);
    expect(calls).toBe(2);
    expect(counters.dropped).toBe(1);
  });
});

describe('adapter states', () => {
  it('goes on scanning when the adapter is powered off and on again', async () => {
    const { source, socket, sightings, deliver, scanEnables } = start();
    await scanning(source);
    const enablesBefore = scanEnables().filter(([enable]) => enable === 1).length;

    socket.setPowered(false);
    await waitFor(() => source.condition().state === 'powered-off', { what: 'powered-off' });
    expect(source.condition().reason).toMatch(/^hci0 is powered off: power it on/);
    expect(deliver(...buttonReports(BUTTON))).toEqual([false, false]);

    socket.setPowered(true);
    await scanning(source);
    expect(scanEnables().filter(([enable]) => enable === 1).length).toBe(enablesBefore + 1);
    deliver(...buttonReports(BUTTON));
    expect(sightings.map((s) => s.deviceId)).toEqual(['7F3A9C']);
  });

  it('says how to fix a refused socket (unauthorized)', async () => {
    const { source, socket } = start();
    await scanning(source);
    socket.refuse();
    expect(source.condition()).toEqual({ state: 'unauthorized', reason: expect.stringMatching(/not permitted to use hci0: grant CAP_NET_RAW and CAP_NET_ADMIN/) });
  });

  it('refreshes a scan after silence without a word above debug, counting no restart', async () => {
    const { source, socket, sightings, deliver, log, scanEnables } = start({ quietRestartMs: 200, watchdogMs: 20 });
    await scanning(source);
    const enables = scanEnables().length;
    socket.stall();
    expect(deliver(...buttonReports(BUTTON))).toEqual([false, false]);
    await waitFor(() => scanEnables().length > enables, { what: 'the silence refresh to start the scan again' });
    await waitFor(() => socket.scanning && deliver(...buttonReports(BUTTON)).every(Boolean), { what: 'reports after the refresh' });
    expect(sightings.map((s) => s.deviceId)).toEqual(['7F3A9C']);
    // Silence is no fault: not counted, not a warning, never an adapter reset.
    expect(source.restarts).toBe(0);
    expect(log.lines.filter((line) => line.level >= 40)).toEqual([]);
    expect(log.lines.some((line) => line.level === 20 && /scan refreshed/.test(String(line.msg)))).toBe(true);
    expect(socket.commands().some((c) => c.opcode === 0x0c03)).toBe(false);
  });

  it('starts the scan again when another program stops it, staying scanning meanwhile', async () => {
    const { source, socket, scanEnables } = start();
    await scanning(source);
    const before = scanEnables().length;
    socket.foreignCommand(LE_SET_SCAN_ENABLE, Buffer.from([0, 0]));
    expect(source.condition().state).toBe('scanning');
    await waitFor(() => socket.scanning, { what: 'the scan to be enabled again' });
    expect(scanEnables().slice(before).at(-1)).toEqual([1, 0]);
    expect(source.restarts).toBe(1);
  });

  it('starts the scan again when another program resets the controller', async () => {
    const { source, socket, sightings, deliver } = start();
    await scanning(source);
    socket.foreignReset();
    expect(socket.scanning).toBe(false);
    expect(source.condition().state).toBe('scanning');
    await waitFor(() => socket.scanning, { what: 'the scan to be enabled again after the reset' });
    expect(source.restarts).toBe(1);
    deliver(...buttonReports(BUTTON));
    expect(sightings.map((s) => s.deviceId)).toEqual(['7F3A9C']);
  });

  it('removes the process handlers noble adds once stopped', async () => {
    const exitBefore = process.listenerCount('exit');
    const sigintBefore = process.listenerCount('SIGINT');
    const { source } = start();
    await scanning(source);
    expect(process.listenerCount('SIGINT')).toBe(sigintBefore);
    source.stop();
    running = undefined;
    expect(process.listenerCount('exit')).toBe(exitBefore);
  });
});

describe('probeBle (for check)', () => {
  it.each([
    ['a working adapter', {}, { state: 'starting' }],
    ['a powered-off adapter', { powered: false }, { state: 'powered-off', reason: expect.stringContaining('hci0 is powered off') }],
    ['a refused socket', { refused: true }, { state: 'unauthorized', reason: expect.stringContaining('CAP_NET_RAW and CAP_NET_ADMIN') }],
  ])('%s', async (_name, options, expected) => {
    expect(await probeBle({ index: 0 }, { socket: new VirtualHciSocket(options) })).toEqual(expected);
  });
});
