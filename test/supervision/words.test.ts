import { describe, expect, it } from 'vitest';
import type { ButtonLiveness } from '../../src/supervision/types.js';
import { batteryWords, clockWords, durationWords, statusContext, livenessOf, livenessWords, supervisionWords } from '../../src/supervision/words.js';

// Times are built from local parts, so the hub's clock words ("09:14") hold in any time zone.
const now = new Date(2026, 10, 26, 11, 24, 0).getTime();
const at = (hours: number, minutes: number, seconds = 0, day = 26): string => new Date(2026, 10, day, hours, minutes, seconds).toISOString();
const button = (overrides: Partial<ButtonLiveness>): ButtonLiveness => ({
  lastHeard: at(9, 14),
  battery: null,
  batteryLow: false,
  supervision: 'online',
  deadlineSeconds: 7200,
  ...overrides,
});

describe('durations and clock times', () => {
  it('read a silence at a glance', () => {
    expect(durationWords(45_400)).toBe('45 s');
    expect(durationWords(-3_000)).toBe('0 s');
    expect(durationWords(3 * 60_000 + 59_000)).toBe('3 min');
    expect(durationWords(2 * 3_600_000)).toBe('2 h');
    expect(durationWords(2 * 3_600_000 + 10 * 60_000 + 5_000)).toBe('2 h 10 min');
    expect(durationWords(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 4 h');
    expect(durationWords(86_400_000)).toBe('1 d');
    expect(durationWords(59_499)).toBe('59 s');
    expect(durationWords(60_000)).toBe('1 min');
    expect(durationWords(3_600_000)).toBe('1 h');
  });

  it('say the hub’s local time, with the date when it is not within the last 20 hours', () => {
    expect(clockWords(Date.parse(at(9, 14)), now)).toBe('09:14');
    expect(clockWords(Date.parse(at(23, 5, 0, 25)), now)).toBe('23:05');
    expect(clockWords(Date.parse(at(9, 14, 0, 24)), now)).toBe('2026-11-24 09:14');
    expect(clockWords(now, now)).toBe('11:24');
    expect(clockWords(now - 20 * 3_600_000 + 1, now)).toBe('15:24');
    expect(clockWords(now - 20 * 3_600_000, now)).toBe('2026-11-25 15:24');
    // A time after the hub's own now (a clock set back since) is no time of today: its date too.
    expect(clockWords(now + 60_000, now)).toBe('2026-11-26 11:25');
  });
});

describe('a button’s supervision in words', () => {
  it('online: how long ago it was heard', () => {
    expect(supervisionWords(button({ lastHeard: at(11, 21) }), now)).toBe('heard 3 min ago');
    expect(supervisionWords(button({ lastHeard: at(11, 23, 15) }), now)).toBe('heard 45 s ago');
    expect(supervisionWords(button({ lastHeard: at(11, 23, 58) }), now)).toBe('heard just now');
    // A wall clock that jumped back puts the report "in the future": still just now.
    expect(supervisionWords(button({ lastHeard: at(11, 30) }), now)).toBe('heard just now');
    expect(supervisionWords(button({ lastHeard: at(11, 23, 55) }), now)).toBe('heard 5 s ago');
    expect(supervisionWords(button({ lastHeard: null }), now)).toBe('online');
  });

  it('missing: for how long, and when it was last heard', () => {
    expect(supervisionWords(button({ supervision: 'missing' }), now)).toBe('missing for 2 h 10 min (last heard 09:14)');
    expect(supervisionWords(button({ supervision: 'missing', lastHeard: null }), now)).toBe('missing (never heard since it was linked)');
  });

  it('unknown: never the button’s fault, and why when it is known', () => {
    expect(supervisionWords(button({ supervision: 'unknown', lastHeard: null }), now)).toBe('unknown: not heard yet since it was linked or the hub started');
    expect(supervisionWords(button({ supervision: 'unknown' }), now)).toBe('unknown: not heard yet since it was linked or the hub started (last heard 09:14)');
    expect(supervisionWords(button({ supervision: 'unknown' }), now, { hearing: false })).toBe('unknown: no working source can hear it (last heard 09:14)');
  });

  it('unsupervised: said plainly', () => {
    expect(supervisionWords(button({ supervision: 'unsupervised', lastHeard: null, deadlineSeconds: null }), now)).toBe('not supervised: sends only when pressed');
    expect(supervisionWords(button({ supervision: 'unsupervised', deadlineSeconds: null }), now)).toBe('not supervised: sends only when pressed (last heard 09:14)');
    expect(supervisionWords(button({ supervision: 'unsupervised', lastHeard: null }), now, { supervisionOff: true })).toBe('not supervised: supervision is off');
  });

  it('a last-heard time that cannot be read counts as never heard', () => {
    expect(supervisionWords(button({ supervision: 'missing', lastHeard: 'yesterday' }), now)).toBe('missing (never heard since it was linked)');
  });

  it('battery: the percent, low marked in words, nothing when unknown', () => {
    expect(batteryWords({ battery: 15, batteryLow: true })).toBe('battery 15 % (low)');
    expect(batteryWords({ battery: 80, batteryLow: false })).toBe('battery 80 %');
    expect(batteryWords({ battery: null, batteryLow: true })).toBe('battery low');
    expect(batteryWords({ battery: null, batteryLow: false })).toBeUndefined();
  });

  it('together, with whether the button has a problem of its own', () => {
    expect(livenessWords(button({ supervision: 'missing', battery: 15, batteryLow: true }), now)).toEqual({
      heard: 'missing for 2 h 10 min (last heard 09:14)',
      battery: 'battery 15 % (low)',
      problem: true,
    });
    expect(livenessWords(button({ lastHeard: at(11, 21) }), now)).toStrictEqual({ heard: 'heard 3 min ago', problem: false });
    expect(livenessWords(button({ supervision: 'missing' }), now).problem).toBe(true);
    expect(livenessWords(button({ supervision: 'unknown' }), now).problem).toBe(false);
    expect(livenessWords(button({ batteryLow: true }), now).problem).toBe(true);
  });
});

describe('what the words are made from', () => {
  it('a device row’s liveness, only where the daemon gave one', () => {
    const stored = { deviceId: 'B1', state: 'linked' as const, customerId: 42, source: 'ble', updatedAt: at(9, 0) };
    expect(livenessOf(stored)).toBeUndefined();
    expect(livenessOf({ ...stored, supervision: 'online', lastHeard: at(9, 14) })).toEqual({ supervision: 'online', lastHeard: at(9, 14), battery: null, batteryLow: false, deadlineSeconds: null });
  });

  it('no working source only when neither the radio scans nor the broker is connected', () => {
    expect(statusContext({ ble: 'scanning', mqtt: 'off' })).toEqual({});
    expect(statusContext({ ble: 'off', mqtt: 'connected' })).toEqual({});
    expect(statusContext({ ble: 'powered-off', mqtt: 'disconnected' })).toEqual({ hearing: false });
    expect(statusContext({ ble: 'scanning', mqtt: 'off', supervision: 'off' })).toEqual({ supervisionOff: true });
  });
});
