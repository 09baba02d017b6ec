import { describe, expect, it } from 'vitest';
import { SupervisedButton } from '../../src/supervision/button.js';
import { savedButton, silenceBeforeRestartMs } from '../../src/supervision/saved.js';

const lastHeard = '2026-01-02T03:04:05.000Z';
const button = (): SupervisedButton => new SupervisedButton('B1', { ceilingMs: 3_600_000, triggerOnly: false, off: false }, 0);

describe('what is saved of a button', () => {
  it('nothing for one never heard', () => {
    expect(savedButton(button(), undefined, 7)).toBeUndefined();
  });

  it('only its last-heard time when nothing else is known', () => {
    expect(savedButton(button(), lastHeard)).toStrictEqual({ lastHeard });
  });

  it('its battery (0 too), its low flag, its learned deadline in seconds, its sources, profile and counter', () => {
    const b = button();
    b.battery = 0;
    b.batteryFlaggedLow = true;
    b.savedDeadlineMs = 90_400;
    b.sources.set('ble', { heardAt: 1, workedAt: 0, creditMs: 0 });
    b.sources.set('mqtt', { heardAt: undefined, workedAt: 0, creditMs: 0 });
    b.profile = 'shelly';
    expect(savedButton(b, lastHeard, 0)).toStrictEqual({
      lastHeard,
      battery: 0,
      batteryLow: true,
      deadlineSeconds: 90,
      sources: ['ble', 'mqtt'],
      profile: 'shelly',
      counter: 0,
    });
  });

  it('no deadline that was not learned, no low flag that was not raised', () => {
    const b = button();
    b.battery = 80;
    b.settings = { ...b.settings, profileSeconds: 600 };
    expect(savedButton(b, lastHeard)).toStrictEqual({ lastHeard, battery: 80 });
  });

  it('at most 16 sources, the first named', () => {
    const b = button();
    const names = Array.from({ length: 20 }, (_, i) => `ble-gateway:g${i}`);
    for (const name of names) b.sources.set(name, { heardAt: undefined, workedAt: 0, creditMs: 0 });
    expect(savedButton(b, lastHeard)?.sources).toEqual(names.slice(0, 16));
  });
});

describe('silence before a restart', () => {
  it('runs from the last report to the last save, never below 0, 0 when a time cannot be read', () => {
    const savedAt = '2026-01-02T03:14:05.000Z';
    expect(silenceBeforeRestartMs({ lastHeard }, { savedAt, devices: {} })).toBe(600_000);
    expect(silenceBeforeRestartMs({ lastHeard: savedAt }, { savedAt: lastHeard, devices: {} })).toBe(0);
    expect(silenceBeforeRestartMs({ lastHeard: 'never' }, { savedAt, devices: {} })).toBe(0);
  });
});
