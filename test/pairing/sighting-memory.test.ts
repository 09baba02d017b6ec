import { describe, expect, it } from 'vitest';
import { SightingMemory } from '../../src/pairing/sighting-memory.js';

const at = 1_700_000_000_000;

describe('SightingMemory', () => {
  it('a flood of distinct ids fills half the memory at once and the rest slowly: the buttons heard before it stay', () => {
    const memory = new SightingMemory({ capacity: 100, maxAgeMs: 60_000, admitPerSecond: 10 });
    for (let i = 0; i < 30; i++) memory.remember({ deviceId: `BUTTON${i}`, source: 'ble', at });
    // A flood: 20 made-up ids fill the memory to half at once, then of 10,000 more over two
    // seconds the bucket's 10 and 10 a second get in, and nothing is pushed out yet.
    for (let i = 0; i < 20; i++) memory.remember({ deviceId: `FILL${i}`, source: 'mqtt', at: at + 1 });
    for (let i = 1; i <= 10_000; i++) memory.remember({ deviceId: `FAKE${i}`, source: 'mqtt', at: at + 1 + Math.floor(i / 5) });
    expect(memory.size).toBe(80);
    expect(memory.refused).toBe(10_000 - 30);
    expect(memory.since(0, at + 2_001).filter((s) => s.deviceId.startsWith('BUTTON'))).toHaveLength(30);
    expect(memory.recent('BUTTON0', at + 2_001, 30_000)).toMatchObject({ deviceId: 'BUTTON0', source: 'ble' });

    // Five more seconds of it, one a millisecond: 50 more get in, the last 30 in place of the
    // oldest entries, the buttons, and the memory stays within its capacity.
    for (let i = 1; i <= 5_000; i++) memory.remember({ deviceId: `MORE${i}`, source: 'mqtt', at: at + 2_001 + i });
    expect(memory.size).toBe(100);
    expect(memory.refused).toBe(10_000 - 30 + 5_000 - 50);
    expect(memory.recent('BUTTON29', at + 7_001, 30_000)).toBeUndefined();
    expect(memory.recent('FILL0', at + 7_001, 30_000)).toMatchObject({ deviceId: 'FILL0' });
  });

  it('a button heard again during a flood stays, and keeps its place as the newest', () => {
    const memory = new SightingMemory({ capacity: 4, maxAgeMs: 60_000, admitPerSecond: 1 });
    memory.remember({ deviceId: 'A', source: 'ble', at });
    memory.remember({ deviceId: 'B', source: 'ble', at });
    memory.remember({ deviceId: 'C', source: 'ble', at }); // half full: the bucket's one token
    memory.remember({ deviceId: 'A', source: 'ble', at: at + 1 });
    memory.remember({ deviceId: 'FAKE1', source: 'mqtt', at: at + 2 }); // refused
    memory.remember({ deviceId: 'FAKE2', source: 'mqtt', at: at + 1_002 }); // a token a second
    expect(memory.since(0, at + 1_002).map((s) => s.deviceId)).toEqual(['B', 'C', 'A', 'FAKE2']);
    memory.remember({ deviceId: 'FAKE3', source: 'mqtt', at: at + 2_002 }); // full: B, the oldest, goes
    expect(memory.since(0, at + 2_002).map((s) => s.deviceId)).toEqual(['C', 'A', 'FAKE2', 'FAKE3']);
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
