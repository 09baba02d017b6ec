import { describe, expect, it } from 'vitest';
import { SightingMemory } from '../../src/pairing/sighting-memory.js';

const at = 1_700_000_000_000;

describe('SightingMemory', () => {
  it('stays within its capacity under a flood of distinct ids, and the flood cannot flush the buttons heard before it', () => {
    const memory = new SightingMemory({ capacity: 100, maxAgeMs: 60_000, admitPerSecond: 10 });
    for (let i = 0; i < 100; i++) memory.remember({ deviceId: `BUTTON${i}`, source: 'ble', at });
    // 10,001 made-up ids over two seconds: the first 10 (the bucket) get in, then 10 a second.
    for (let i = 0; i <= 10_000; i++) memory.remember({ deviceId: `FAKE${i}`, source: 'mqtt', at: at + 1 + Math.floor(i / 5) });
    expect(memory.size).toBe(100);
    expect(memory.refused).toBe(10_001 - 30);
    const kept = memory.since(0, at + 2_001).filter((s) => s.deviceId.startsWith('BUTTON'));
    expect(kept).toHaveLength(70);
    // The oldest went first: BUTTON0 to BUTTON29 made room, BUTTON30 onwards are still found.
    expect(memory.recent('BUTTON29', at + 2_001, 30_000)).toBeUndefined();
    expect(memory.recent('BUTTON30', at + 2_001, 30_000)).toMatchObject({ deviceId: 'BUTTON30', source: 'ble' });
  });

  it('a button heard again during a flood stays, and keeps its place as the newest', () => {
    const memory = new SightingMemory({ capacity: 3, maxAgeMs: 60_000, admitPerSecond: 1 });
    memory.remember({ deviceId: 'A', source: 'ble', at });
    memory.remember({ deviceId: 'B', source: 'ble', at });
    memory.remember({ deviceId: 'C', source: 'ble', at });
    memory.remember({ deviceId: 'A', source: 'ble', at: at + 1 });
    memory.remember({ deviceId: 'FAKE1', source: 'mqtt', at: at + 2 }); // the one token: B goes
    memory.remember({ deviceId: 'FAKE2', source: 'mqtt', at: at + 3 }); // refused
    expect(memory.since(0, at + 3).map((s) => s.deviceId)).toEqual(['C', 'A', 'FAKE1']);
    memory.remember({ deviceId: 'FAKE3', source: 'mqtt', at: at + 1_003 }); // a token a second: C goes
    expect(memory.since(0, at + 1_003).map((s) => s.deviceId)).toEqual(['A', 'FAKE1', 'FAKE3']);
    expect(memory.refused).toBe(1);
  });

  it('makes room freely where the oldest sighting is past the age bound', () => {
    const memory = new SightingMemory({ capacity: 2, maxAgeMs: 1_000, admitPerSecond: 1 });
    memory.remember({ deviceId: 'OLD1', source: 'ble', at });
    memory.remember({ deviceId: 'OLD2', source: 'ble', at });
    for (let i = 0; i < 2; i++) memory.remember({ deviceId: `NEW${i}`, source: 'ble', at: at + 5_000 });
    expect(memory.refused).toBe(0);
    expect(memory.since(0, at + 5_000).map((s) => s.deviceId)).toEqual(['NEW0', 'NEW1']);
  });

  it('forgets sightings older than its age bound', () => {
    const memory = new SightingMemory({ capacity: 100, maxAgeMs: 1000 });
    memory.remember({ deviceId: 'OLD', source: 'ble', rssi: -60, at });
    memory.remember({ deviceId: 'NEW', source: 'ble', rssi: -60, at: at + 1500 });
    expect(memory.since(0, at + 2000).map((s) => s.deviceId)).toEqual(['NEW']);
    expect(memory.size).toBe(1);
  });

  it('smooths RSSI over reports from one source', () => {
    const memory = new SightingMemory({ capacity: 10, maxAgeMs: 60_000 });
    memory.remember({ deviceId: 'A', source: 'ble', rssi: -50, at });
    memory.remember({ deviceId: 'A', source: 'ble', rssi: -90, at: at + 1 });
    expect(memory.recent('A', at + 1, 1000)?.rssi).toBe(-62);
  });

  it('answers recent() only within the asked window', () => {
    const memory = new SightingMemory({ capacity: 10, maxAgeMs: 60_000 });
    memory.remember({ deviceId: 'A', source: 'mqtt', at });
    expect(memory.recent('A', at + 29_000, 30_000)).toMatchObject({ deviceId: 'A', source: 'mqtt' });
    expect(memory.recent('A', at + 31_000, 30_000)).toBeUndefined();
  });
});
