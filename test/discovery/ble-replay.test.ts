import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PROFILE } from '../../src/config/profile.js';
import { createCounters } from '../../src/status/counters.js';
import { startBleSource } from '../../src/discovery/ble.js';
import { startReplay } from '../../src/discovery/ble-replay.js';
import { readCapture } from '../../src/discovery/btsnoop.js';
import { loadNoble } from '../../src/discovery/noble-loader.js';
import { ProfileMatcher } from '../../src/discovery/profiles.js';
import type { Sighting } from '../../src/sighting.js';
import { VirtualHciSocket } from '../../src/discovery/virtual-hci-socket.js';
import { scanCapture, writeCapture, type Datalink } from '../support/btsnoop-writer.js';
import { silentLogger } from '../../src/log/logger.js';
import { waitFor } from '../support/wait.js';
import { buttonReports } from './fixtures/captures.js';

// Replay: a capture's reports fed to noble through the VirtualHciSocket at their recorded pace,
// looping. The replay's timer is driven by hand here, so the pace is checked without waiting.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
});

const A = { id: 'AAA111', address: 'c4:64:9f:00:00:01', rssi: -50 };
const B = { id: 'BBB222', address: 'c4:64:9f:00:00:02', rssi: -80 };

describe.each([2001, 1002] as const)('replaying a datalink %i capture', (datalink: Datalink) => {
  it('delivers each report at its recorded offset, loops after a pause, and stops', async () => {
    const file = path.join(dir, `pace-${datalink}.btsnoop`);
    writeCapture(file, datalink, scanCapture([...buttonReports(A).map((report) => ({ atMs: 0, report })), ...buttonReports(B).map((report) => ({ atMs: 500, report }))]));
    const capture = await readCapture(file);

    const socket = new VirtualHciSocket();
    const radio = loadNoble({ hciDevice: 0, socket });
    const sightings: Sighting[] = [];
    const source = startBleSource({
      radio,
      matcher: new ProfileMatcher([DEFAULT_PROFILE]),
      source: 'ble',
      adapter: 'replay',
      counters: createCounters(),
      logger: silentLogger(),
      onSighting: (sighting) => sightings.push(sighting),
    });
    radio.open();
    await waitFor(() => source.condition().state === 'scanning', { what: 'the scan to start' });

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let clock = 0;
    const replay = startReplay({ capture, socket, loopPauseMs: 1_000, now: () => clock });
    const seen = (): string[] => sightings.map((s) => `${s.deviceId}@${s.rssi}`);

    vi.advanceTimersByTime(0);
    expect(seen()).toEqual(['AAA111@-50']);
    clock = 499;
    vi.advanceTimersByTime(499);
    expect(seen()).toEqual(['AAA111@-50']);
    clock = 500;
    vi.advanceTimersByTime(1);
    expect(seen()).toEqual(['AAA111@-50', 'BBB222@-80']);
    expect(replay.loops).toBe(1);

    clock = 1_499;
    vi.advanceTimersByTime(999);
    expect(sightings).toHaveLength(2);
    clock = 1_500;
    vi.advanceTimersByTime(1);
    expect(seen()).toEqual(['AAA111@-50', 'BBB222@-80', 'AAA111@-50']);
    expect(replay.delivered).toBe(6);

    replay.stop();
    clock = 10_000;
    vi.advanceTimersByTime(10_000);
    expect(sightings).toHaveLength(3);
    vi.useRealTimers();
    source.stop();
  });
});
