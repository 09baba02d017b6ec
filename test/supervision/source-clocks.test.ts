import { describe, expect, it } from 'vitest';
import { SourceClocks } from '../../src/supervision/source-clocks.js';

function clocksWith(up: Record<string, boolean>): SourceClocks {
  return new SourceClocks((source) => up[source] ?? true);
}

describe('SourceClocks', () => {
  it('sums working time across outages, from the moment a source is first named', () => {
    const up = { ble: true };
    const clocks = clocksWith(up);
    expect(clocks.up('ble', 1_000)).toBe(true);
    expect(clocks.worked('ble', 5_000)).toBe(4_000);
    expect(clocks.sample(5_500)).toEqual([]);
    up.ble = false;
    expect(clocks.sample(6_000)).toEqual(['ble']);
    expect(clocks.up('ble', 7_000)).toBe(false);
    expect(clocks.worked('ble', 9_000)).toBe(5_000);
    up.ble = true;
    expect(clocks.sample(10_000)).toEqual(['ble']);
    expect(clocks.worked('ble', 12_000)).toBe(7_000);
    expect(clocks.sources()).toEqual(['ble']);
  });

  it('says whether a source was down at or after an instant', () => {
    const up = { mqtt: true, ble: true };
    const clocks = clocksWith(up);
    clocks.up('ble', 0);
    clocks.up('mqtt', 0);
    up.mqtt = false;
    clocks.sample(6_000);
    expect(clocks.downAfter('mqtt', 6_000, 9_000)).toBe(true);
    expect(clocks.downAfter('mqtt', 6_001, 9_000)).toBe(false);
    expect(clocks.downAfter('ble', 0, 9_000)).toBe(false);
  });

  it('counts a source first read as down as down from then, working for no time', () => {
    const clocks = clocksWith({ gateway: false });
    expect(clocks.up('gateway', 2_000)).toBe(false);
    expect(clocks.worked('gateway', 9_000)).toBe(0);
    expect(clocks.downAfter('gateway', 2_000, 9_000)).toBe(true);
  });

  it('takes a source that heard a report as working from then, whatever the last sample said', () => {
    const up = { ble: true };
    const clocks = clocksWith(up);
    clocks.up('ble', 1_000);
    up.ble = false;
    clocks.sample(3_000);
    expect(clocks.heardFrom('ble', 8_000)).toBe(2_000);
    expect(clocks.up('ble', 8_000)).toBe(true);
    expect(clocks.worked('ble', 9_000)).toBe(3_000);
    expect(clocks.heardFrom('ble', 10_000)).toBe(4_000);
  });
});
