import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE } from '../../src/config/profile.js';
import { createCounters } from '../../src/status/counters.js';
import { startBleSource } from '../../src/discovery/ble.js';
import { startReplay } from '../../src/discovery/ble-replay.js';
import { readCapture } from '../../src/discovery/btsnoop.js';
import { loadNoble } from '../../src/discovery/noble-loader.js';
import { ProfileMatcher } from '../../src/discovery/profiles.js';
import type { Sighting } from '../../src/sighting.js';
import { VirtualHciSocket } from '../../src/discovery/virtual-hci-socket.js';
import { adStructures, scanCapture, writeCapture, type AdvertisingReport, type Datalink } from '../support/btsnoop-writer.js';
import { silentLogger } from '../../src/log/logger.js';
import { waitFor } from '../support/wait.js';
import { phoneReport } from './fixtures/captures.js';

// A button's battery from the hub's radio: BTHome v2 service data (UUID 0xFCD2) in its
// advertisement, recorded in a btsnoop capture and replayed through noble's own parser, the way
// PANIC_PAIR_BLE_REPLAY and the live adapter both go.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-battery-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BTHOME = 0xfcd2;

/** A battery-reporting button: BTHome data in its advertisement, its name in the scan response. */
function bthomeButton(id: string, address: string, bthome: string): AdvertisingReport[] {
  return [
    { address, type: 'ADV_IND', rssi: -55, data: adStructures({ flags: 0x06, serviceData16: { uuid: BTHOME, data: Buffer.from(bthome, 'hex') } }) },
    { address, type: 'SCAN_RSP', rssi: -55, data: adStructures({ name: `PANIC-${id}` }) },
  ];
}

describe.each([2001, 1002] as const)('a datalink %i capture with BTHome buttons', (datalink: Datalink) => {
  it('gives each button its battery, drops an out-of-range one and counts it, reads nothing encrypted', async () => {
    const file = path.join(dir, `battery-${datalink}.btsnoop`);
    const reports = [
      ...bthomeButton('BAT064', 'c4:64:9f:00:01:01', '4400210140'), // trigger based, packet id, 64 %
      ...bthomeButton('BATLOW', 'c4:64:9f:00:01:02', '4001091501'), // 9 %, flagged low
      ...bthomeButton('BAT250', 'c4:64:9f:00:01:03', '4001fa'), // 250 %: out of range
      ...bthomeButton('SECRET', 'c4:64:9f:00:01:04', '41a47266c95f730011223378237214'), // encrypted
      ...bthomeButton('BTHOV1', 'c4:64:9f:00:01:05', '230201'), // not v2
      // A phone with BTHome data of its own is no button: its data is never read.
      { ...phoneReport(1), data: adStructures({ flags: 0x1a, serviceData16: { uuid: BTHOME, data: Buffer.from('4001fa', 'hex') } }) },
    ];
    writeCapture(file, datalink, scanCapture(reports.map((report) => ({ atMs: 0, report }))));
    const capture = await readCapture(file);

    const socket = new VirtualHciSocket();
    const radio = loadNoble({ hciDevice: 0, socket });
    const counters = createCounters();
    const sightings = new Map<string, Sighting>();
    const source = startBleSource({
      radio,
      matcher: new ProfileMatcher([DEFAULT_PROFILE]),
      source: 'ble',
      adapter: 'replay',
      counters,
      logger: silentLogger(),
      onSighting: (sighting) => sightings.set(sighting.deviceId, sighting),
    });
    radio.open();
    await waitFor(() => source.condition().state === 'scanning', { what: 'the scan to start' });
    const replay = startReplay({ capture, socket, loopPauseMs: 60_000 });
    try {
      await waitFor(() => sightings.size === 5, { what: 'the five buttons' });
      expect(sightings.get('BAT064')).toMatchObject({ source: 'ble', rssi: -55, battery: 64 });
      expect(sightings.get('BATLOW')).toMatchObject({ battery: 9, batteryLow: true });
      for (const id of ['BAT250', 'SECRET', 'BTHOV1']) {
        expect(sightings.get(id)).toBeDefined();
        expect(sightings.get(id)).not.toHaveProperty('battery');
        expect(sightings.get(id)).not.toHaveProperty('batteryLow');
      }
      // One pass of the capture: each button is a sighting once its scan response names it.
      expect(counters.batteryDropped).toBe(1);
      expect(counters.dropped).toBe(0);
    } finally {
      replay.stop();
      source.stop();
    }
  });
});
