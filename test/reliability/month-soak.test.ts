import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCounters } from '../../src/status/counters.js';
import { startAnnounceSource } from '../../src/discovery/announce.js';
import { silentLogger } from '../../src/log/logger.js';
import type { MqttConnection } from '../../src/mqtt/connection.js';
import { PairingEngine } from '../../src/pairing/engine.js';
import type { HeardSection } from '../../src/store/schema.js';
import { Supervisor } from '../../src/supervision/supervisor.js';
import { DAY, DroppingBroker, FlakyApi, MINUTE, MemoryStore, RHYTHMS, type HubLife } from './month/hub-life.js';

// A month of a hub's life on a fake clock: buttons reporting every five minutes
// among phones that change their address, entitlement refreshed, the broker dropping daily, the
// API away for two hours every third day, a new button linked each day through a window, one
// forgotten each week. Afterwards what the engine keeps is back to what it was after the first
// day: live objects of each kind (v8.queryObjects), timers, jobs, retries; the store holds exactly
// the buttons linked, each once. The rhythms are in month/hub-life.ts, for supervision to join.

const DAYS = 30;
const STEP_MINUTES = 5;
/** Live objects of one kind that the test and the runner may hold beyond the baseline. */
const SLACK = 32;

afterEach(() => {
  vi.useRealTimers();
});

/** Live objects of the kinds the engine makes per request, sighting and wait. */
function liveObjects(): Record<string, number> {
  const count = (ctor: new (...args: never[]) => unknown): number => v8.queryObjects(ctor as unknown as () => unknown, { format: 'count' }) as number;
  return { AbortController: count(AbortController), AbortSignal: count(AbortSignal), Promise: count(Promise), Map: count(Map), Set: count(Set) };
}

describe('a month of a hub on a fake clock', () => {
  // Pure CPU on a fake clock: 5 s alone, 45 s among the suite's other files, 167 s once beside
  // package builds and container suites on two busy cores. The limit only catches a hang.
  it('leaves nothing behind: objects, timers, jobs and retries back to what they were after the first day', { timeout: 600_000 }, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'], now: Date.UTC(2026, 0, 1) });
    const api = new FlakyApi();
    const store = new MemoryStore();
    const broker = new DroppingBroker();
    const counters = createCounters();
    const engine = new PairingEngine({
      customerId: 42,
      api,
      store,
      hasToken: true,
      apiConcurrency: 4,
      entitlementTtlMs: 15 * MINUTE,
      minRssi: -80,
      autoPair: false,
      counters,
      logger: silentLogger(),
      clock: () => performance.now(),
      wallClock: () => Date.now(),
    });
    // Supervision as the daemon wires it: it hears every sighting first; announcements are heard
    // while the broker is up; the times are "saved" in memory.
    let saved: HeardSection | undefined;
    const supervisor = new Supervisor({
      on: true,
      maxSeconds: 7200,
      batteryLowPercent: 20,
      profiles: [],
      sourceUp: (source) => source !== 'mqtt' || !broker.dropped,
      save: async (section) => {
        saved = section;
      },
      logger: silentLogger(),
      clock: () => performance.now(),
      wallClock: () => Date.now(),
    });
    engine.onDevice((record) => supervisor.deviceChanged(record));
    engine.onForget((deviceId) => supervisor.forgotten(deviceId));
    const missingEpisodes: string[] = [];
    supervisor.onLiveness((deviceId, liveness) => {
      if (liveness.supervision === 'missing' && missingEpisodes.at(-1) !== deviceId) missingEpisodes.push(deviceId);
      if (liveness.supervision === 'online' && missingEpisodes.at(-1) === deviceId) missingEpisodes.push(`${deviceId} back`);
    });
    supervisor.start();
    const source = startAnnounceSource({
      connection: broker as unknown as MqttConnection,
      prefix: 'panic',
      counters,
      logger: silentLogger(),
      onSighting: (sighting) => {
        supervisor.heard(sighting);
        engine.sighting(sighting);
      },
      now: () => performance.now(),
    });

    let made = 0;
    const linked = new Set<string>();
    const forgotten: string[] = [];
    // What the life started and has not ended yet; each removes itself when it settles.
    const background = new Set<Promise<unknown>>();
    const track = (work: Promise<unknown>): void => {
      const tracked: Promise<unknown> = work.catch(() => undefined).finally(() => background.delete(tracked));
      background.add(tracked);
    };
    const life: HubLife = {
      minute: 0,
      api,
      broker,
      buttons: [],
      silent: new Set(),
      hear: (deviceId, rssi) => {
        const sighting = { deviceId, rssi, source: 'ble', at: performance.now() };
        supervisor.heard(sighting);
        engine.sighting(sighting);
      },
      newButton: () => `BTN-${String(++made).padStart(3, '0')}`,
      openWindow: (seconds) => {
        const report = engine.openWindow(seconds, {
          signal: new AbortController().signal,
          onOutcome: (outcome) => {
            if (outcome.ok) {
              linked.add(outcome.record.deviceId);
              life.buttons.push(outcome.record.deviceId);
            }
          },
        });
        track(report);
      },
      pair: (deviceId) => {
        track(engine.pair(deviceId, { timeoutMs: 30_000, signal: new AbortController().signal, onProgress: () => undefined }));
      },
      forget: (deviceId) => {
        life.buttons = life.buttons.filter((id) => id !== deviceId);
        forgotten.push(deviceId);
        track(engine.forget(deviceId));
      },
      askHousehold: () => track(engine.household()),
    };

    let baseline: { objects: Record<string, number>; timers: number } | undefined;
    for (let minute = 0; minute < DAYS * 24 * 60; minute += STEP_MINUTES) {
      life.minute = minute;
      for (const rhythm of RHYTHMS) {
        if ((minute - (rhythm.at ?? 0)) % rhythm.every === 0 && minute >= (rhythm.at ?? 0)) rhythm.act(life);
      }
      await vi.advanceTimersByTimeAsync(STEP_MINUTES * MINUTE);
      expect(background.size, 'work the life started piles up').toBeLessThan(16);
      if (minute === DAY / MINUTE) baseline = { objects: liveObjects(), timers: vi.getTimerCount() };
    }
    // Supervision as the month ends, before the quiet day below (in which every button falls
    // silent, and is missing, as it should be).
    const monthEpisodes = [...missingEpisodes];
    const monthCounts = supervisor.counts();
    await vi.advanceTimersByTimeAsync(DAY);
    expect(background.size).toBe(0);
    const after = { objects: liveObjects(), timers: vi.getTimerCount() };

    // What was really linked, each once, and nothing else; the forgotten are gone.
    expect(linked.size).toBe(DAYS);
    expect(api.links.map((link) => link.deviceId).sort()).toEqual([...linked].sort());
    expect(store.all().map((record) => record.deviceId).sort()).toEqual([...linked].filter((id) => !forgotten.includes(id)).sort());
    expect(store.all().every((record) => record.state === 'linked')).toBe(true);
    expect(counters.dropped).toBeGreaterThan(0);
    // Nothing in flight, nothing waiting, and no more timers or live objects than after day one.
    expect({ jobs: engine.jobsInFlight, retries: engine.pendingRetries, unsaved: engine.unsavedLinks }).toEqual({ jobs: 0, retries: 0, unsaved: 0 });
    expect(engine.heard(Number.POSITIVE_INFINITY).length).toBeLessThanOrEqual(2048);
    expect(after.timers).toBeLessThanOrEqual(baseline!.timers);
    for (const [kind, count] of Object.entries(after.objects)) {
      // A little slack for what the test itself and vitest hold at either moment.
      expect({ kind, count: Math.min(count, baseline!.objects[kind]! + SLACK) }).toEqual({ kind, count });
    }
    // Supervision: each silence was seen missing and then back, and nothing else ever was (the
    // broker's daily drops and the API's outages made no button missing); what it keeps is the
    // linked buttons and no more.
    const silences = RHYTHMS.find((rhythm) => rhythm.what === 'a button falls silent')!;
    const expectedEpisodes = Math.floor((DAYS * 24 * 60 - silences.at!) / silences.every) + 1;
    expect(monthEpisodes.filter((episode) => !episode.endsWith(' back'))).toHaveLength(expectedEpisodes);
    expect(monthEpisodes.filter((episode) => episode.endsWith(' back'))).toHaveLength(expectedEpisodes);
    expect(monthCounts).toMatchObject({ linked: store.all().length, missing: 0, batteryLow: 0 });
    expect(supervisor.counts()).toMatchObject({ linked: store.all().length, missing: store.all().length });
    expect(Object.keys(saved?.devices ?? {}).sort()).toEqual(store.all().map((record) => record.deviceId).sort());
    await supervisor.stop();
    source.stop();
    await engine.drain(1_000);
  });
});
