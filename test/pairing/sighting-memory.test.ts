import { describe, expect, it } from 'vitest';
import { SightingMemory } from '../../src/pairing/sighting-memory.js';

const at = 1_700_000_000_000;

describe('SightingMemory', () => {
  it('stays within its capacity under a flood of distinct ids, keeping the newest', () => {
    const memory = new SightingMemory({ capacity: 100, maxAgeMs: 60_000 });
    for (let i = 0; i < 10_000; i++) memory.remember({ deviceId: `ID${i}`, source: 'mqtt', at: at + i });
    expect(memory.size).toBe(100);
    expect(memory.recent('ID9999', at + 10_000, 60_000)).toBeDefined();
    expect(memory.recent('ID0', at + 10_000, 60_000)).toBeUndefined();
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
