import { describe, expect, it } from 'vitest';
import type { HeardSection } from '../../src/store/schema.js';
import type { DeviceRecord } from '../../src/store/record.js';
import { SAVE_INTERVAL_MS, SWEEP_MS, Supervisor, type SupervisorOptions } from '../../src/supervision/supervisor.js';
import { captureLog } from '../support/log-capture.js';

// Supervision on a fake clock: hours pass in a few milliseconds. The supervisor's sweep
// is called as its timer would call it, every SWEEP_MS of the fake monotonic clock.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const WALL_ORIGIN = Date.parse('2026-11-26T08:00:00Z');

function linked(deviceId: string, source = 'mqtt'): DeviceRecord {
  return { deviceId, state: 'linked', customerId: 42, source, linkId: 1, linkedAt: '2026-11-01T00:00:00.000Z', updatedAt: '2026-11-01T00:00:00.000Z' };
}

function rig(options: Partial<SupervisorOptions> & { wallOffset?: number } = {}) {
  const clock = { now: 0, wallOffset: options.wallOffset ?? 0 };
  const up = new Map<string, boolean>();
  const saves: HeardSection[] = [];
  const log = captureLog('info');
  const supervisor = new Supervisor({
    on: true,
    maxSeconds: 7200,
    batteryLowPercent: 20,
    profiles: [],
    sourceUp: (source) => up.get(source) ?? true,
    save: async (section) => {
      saves.push(structuredClone(section));
    },
    logger: log.logger,
    clock: () => clock.now,
    wallClock: () => WALL_ORIGIN + clock.wallOffset + clock.now,
    ...options,
  });
  const changes: Array<{ at: number; deviceId: string; supervision: string }> = [];
  supervisor.onLiveness((deviceId, liveness) => {
    const last = changes.findLast((c) => c.deviceId === deviceId);
    if (last?.supervision !== liveness.supervision) changes.push({ at: clock.now, deviceId, supervision: liveness.supervision });
  });
  /** Runs the fake clock to `until`, sweeping as the timer would and calling `each` every step;
   * the saves a sweep asked for settle before the next one, as they would in a real minute. */
  const run = async (until: number, each?: (now: number) => void, stepMs = SWEEP_MS): Promise<void> => {
    while (clock.now < until) {
      clock.now = Math.min(until, clock.now + stepMs);
      each?.(clock.now);
      if (clock.now % SWEEP_MS === 0) {
        supervisor.sweep();
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  };
  const hear = (deviceId: string, source = 'mqtt', extra: { battery?: number; batteryLow?: boolean; profile?: string } = {}): void =>
    supervisor.heard({ deviceId, source, at: clock.now, ...extra });
  const supervision = (deviceId: string): string | undefined => supervisor.liveness(deviceId)?.supervision;
  return { clock, up, saves, supervisor, run, hear, supervision, changes, log };
}

/** Reports every `everyMs` until `until`. */
function reporting(r: ReturnType<typeof rig>, deviceId: string, everyMs: number, until: number, source = 'mqtt'): Promise<void> {
  let next = r.clock.now;
  return r.run(until, (now) => {
    while (next <= now) {
      r.hear(deviceId, source);
      next += everyMs;
    }
  }, 1_000);
}

describe('a button that stops', () => {
  it('is missing within its learned deadline plus a minute, and online again at its next report', async () => {
    const r = rig();
    r.supervisor.load([linked('B1')], undefined);
    expect(r.supervision('B1')).toBe('unknown');
    await reporting(r, 'B1', 30_000, 10 * MINUTE);
    expect(r.supervision('B1')).toBe('online');
    // Learned: twice the longest gap (30 s) and a minute of margin.
    expect(r.supervisor.liveness('B1')?.deadlineSeconds).toBe(120);
    const fellSilent = r.clock.now;
    await r.run(fellSilent + 3 * HOUR);
    const missing = r.changes.find((c) => c.supervision === 'missing');
    expect(missing).toBeDefined();
    expect(missing!.at - fellSilent).toBeGreaterThanOrEqual(120_000);
    expect(missing!.at - fellSilent).toBeLessThanOrEqual(120_000 + MINUTE);
    expect(r.supervisor.counts()).toMatchObject({ linked: 1, missing: 1 });
    expect(r.supervisor.problems()).toEqual([expect.stringMatching(/^button B1 missing for 3 h \(last heard \d\d:\d\d\)$/)]);
    expect(r.log.lines.some((line) => line.msg === 'button missing: not heard within its deadline' && line.deviceId === 'B1')).toBe(true);

    r.hear('B1');
    expect(r.supervision('B1')).toBe('online');
    expect(r.supervisor.problems()).toEqual([]);
  });

  it('before an interval is learned, is missing only at the ceiling', async () => {
    const r = rig({ maxSeconds: 3600 });
    r.supervisor.load([linked('B1')], undefined);
    r.hear('B1');
    await r.run(59 * MINUTE);
    expect(r.supervision('B1')).toBe('online');
    await r.run(62 * MINUTE);
    expect(r.supervision('B1')).toBe('missing');
  });
});

describe('deadlines', () => {
  it('a profile supervisionSeconds is the deadline, bounded by the ceiling', async () => {
    const r = rig({ maxSeconds: 7200, profiles: [{ name: 'slow', supervisionSeconds: 90_000 }, { name: 'quick', supervisionSeconds: 300 }] });
    r.supervisor.load([linked('S'), linked('Q')], undefined);
    r.hear('S', 'mqtt', { profile: 'slow' });
    r.hear('Q', 'mqtt', { profile: 'quick' });
    expect(r.supervisor.liveness('S')?.deadlineSeconds).toBe(7200);
    expect(r.supervisor.liveness('Q')?.deadlineSeconds).toBe(300);
    await r.run(6 * MINUTE);
    expect(r.supervision('Q')).toBe('missing');
    expect(r.supervision('S')).toBe('online');
    await r.run(2 * HOUR + MINUTE);
    expect(r.supervision('S')).toBe('missing');
  });

  it('a learned interval never exceeds the ceiling, and is never below a minute', async () => {
    const r = rig({ maxSeconds: 3600 });
    r.supervisor.load([linked('F'), linked('H')], undefined);
    // F every 2 s, H every 40 minutes: floors and ceilings.
    let nextH = 0;
    await reporting(r, 'F', 2_000, 4 * HOUR);
    r.clock.now = 0;
    await r.run(4 * HOUR, (now) => {
      if (now >= nextH) {
        r.hear('H');
        nextH += 40 * MINUTE;
      }
    }, MINUTE);
    expect(r.supervisor.liveness('F')?.deadlineSeconds).toBe(64);
    expect(r.supervisor.liveness('H')?.deadlineSeconds).toBe(3600);
  });

  it('a triggerOnly profile is unsupervised: silence says nothing', async () => {
    const r = rig({ profiles: [{ name: 'press-only', triggerOnly: true }] });
    r.supervisor.load([linked('T')], undefined);
    r.hear('T', 'mqtt', { profile: 'press-only' });
    await r.run(10 * HOUR);
    expect(r.supervision('T')).toBe('unsupervised');
    expect(r.supervisor.liveness('T')?.deadlineSeconds).toBeNull();
    expect(r.supervisor.counts()).toMatchObject({ unsupervised: 1, missing: 0 });
  });

  it('PANIC_PAIR_SUPERVISION=off makes every button unsupervised', async () => {
    const r = rig({ on: false });
    r.supervisor.load([linked('A')], undefined);
    await r.run(10 * HOUR);
    expect(r.supervision('A')).toBe('unsupervised');
  });
});

describe('sources that fail', () => {
  it("a gateway's last will makes its buttons unknown, while a button the hub's radio also hears stays online", async () => {
    const r = rig();
    r.supervisor.load([linked('G1', 'ble-gateway:kitchen'), linked('BOTH', 'ble')], undefined);
    const every = (now: number): void => {
      if (now % 10_000 !== 0) return;
      r.hear('G1', 'ble-gateway:kitchen');
      r.hear('BOTH', 'ble-gateway:kitchen');
      r.hear('BOTH', 'ble');
    };
    await r.run(10 * MINUTE, every, 1_000);
    expect([r.supervision('G1'), r.supervision('BOTH')]).toEqual(['online', 'online']);
    // The gateway goes: its last will says offline, and it hears nothing more.
    r.up.set('ble-gateway:kitchen', false);
    await r.run(5 * HOUR, (now) => {
      if (now % 10_000 === 0) r.hear('BOTH', 'ble');
    }, 1_000);
    expect(r.supervision('G1')).toBe('unknown');
    expect(r.supervision('BOTH')).toBe('online');
    expect(r.changes.filter((c) => c.supervision === 'missing')).toEqual([]);
    // The gateway is back: G1 is heard again.
    r.up.set('ble-gateway:kitchen', true);
    r.clock.now += 1_000;
    r.supervisor.sweep();
    r.hear('G1', 'ble-gateway:kitchen');
    expect(r.supervision('G1')).toBe('online');
  });

  it('the radio failing for hours makes no button missing, and a button silent while it works still is', async () => {
    const r = rig();
    r.supervisor.load([linked('R1', 'ble'), linked('R2', 'ble')], undefined);
    await reporting(r, 'R1', 1_000, 5 * MINUTE, 'ble');
    r.clock.now = 0;
    await reporting(r, 'R2', 1_000, 5 * MINUTE, 'ble');
    r.up.set('ble', false);
    await r.run(r.clock.now + 6 * HOUR);
    expect([r.supervision('R1'), r.supervision('R2')]).toEqual(['unknown', 'unknown']);
    expect(r.supervisor.problems()).toEqual([]);
    // Back: R1 is heard at once, R2 stays silent and is missing once the radio has worked its deadline.
    r.up.set('ble', true);
    const back = r.clock.now;
    await reporting(r, 'R1', 1_000, back + 10 * MINUTE, 'ble');
    expect(r.supervision('R1')).toBe('online');
    expect(r.supervision('R2')).toBe('missing');
    const missing = r.changes.find((c) => c.deviceId === 'R2' && c.supervision === 'missing')!;
    expect(missing.at - back).toBeLessThanOrEqual(64_000 + MINUTE);
    expect(r.changes.filter((c) => c.deviceId === 'R1' && c.supervision === 'missing')).toEqual([]);
  });
});

describe('battery', () => {
  it('a low battery is its own problem, not missing', async () => {
    const r = rig();
    r.supervisor.load([linked('L')], undefined);
    r.hear('L', 'mqtt', { battery: 15 });
    expect(r.supervisor.liveness('L')).toMatchObject({ battery: 15, batteryLow: true, supervision: 'online' });
    expect(r.supervisor.problems()).toEqual(['button L battery 15 % (low)']);
    r.hear('L', 'mqtt', { battery: 80 });
    expect(r.supervisor.problems()).toEqual([]);
    r.hear('L', 'mqtt', { batteryLow: true });
    expect(r.supervisor.counts().batteryLow).toBe(1);
  });
});

describe('across a restart', () => {
  it('a restart and a hub off for an hour show no false missing; a button silent through them is missing in time', async () => {
    const first = rig();
    first.supervisor.load([linked('ALIVE', 'ble'), linked('GONE', 'ble')], undefined);
    await reporting(first, 'ALIVE', 1_000, 30 * MINUTE, 'ble');
    first.clock.now = 0;
    await reporting(first, 'GONE', 1_000, 20 * MINUTE, 'ble');
    const goneSilentWall = WALL_ORIGIN + 20 * MINUTE;
    await first.run(30 * MINUTE);
    await first.supervisor.stop();
    {
      const saved = first.saves.at(-1)!;
      expect(saved.devices.GONE?.lastHeard).toBe(new Date(goneSilentWall).toISOString());
      // The hub is off for an hour; the monotonic clock starts again from 0.
      const second = rig({ wallOffset: 30 * MINUTE + HOUR });
      // Scanning starts 3 s in.
      second.up.set('ble', false);
      second.supervisor.load([linked('ALIVE', 'ble'), linked('GONE', 'ble')], saved);
      expect([second.supervision('ALIVE'), second.supervision('GONE')]).toEqual(['unknown', 'unknown']);
      await second.run(3_000);
      expect([second.supervision('ALIVE'), second.supervision('GONE')]).toEqual(['unknown', 'unknown']);
      second.up.set('ble', true);
      await reporting(second, 'ALIVE', 1_000, 20 * MINUTE, 'ble');
      expect(second.changes.filter((c) => c.supervision === 'missing' && c.deviceId === 'ALIVE')).toEqual([]);
      expect(second.supervision('ALIVE')).toBe('online');
      // GONE: silent 10 min before the restart (missing then), with a learned 64 s deadline: missing
      // again as soon as scanning resumes, without waiting out a new deadline.
      const missing = second.changes.find((c) => c.deviceId === 'GONE' && c.supervision === 'missing');
      expect(missing?.at).toBeLessThanOrEqual(3_000 + SWEEP_MS);
      expect(second.supervisor.liveness('GONE')?.lastHeard).toBe(saved.devices.GONE?.lastHeard);
    }
  });

  it('a button silent before the restart is missing within its deadline plus 15 minutes of falling silent', async () => {
    const first = rig({ maxSeconds: 3600 });
    first.supervisor.load([linked('Q')], undefined);
    first.hear('Q');
    // Silent from here; saves come every 15 minutes at most, the last one 40 minutes in; the daemon dies at 50 minutes.
    await first.run(40 * MINUTE);
    first.supervisor.sweep();
    const saved: HeardSection = { savedAt: new Date(WALL_ORIGIN + 40 * MINUTE).toISOString(), devices: { Q: { lastHeard: new Date(WALL_ORIGIN).toISOString(), sources: ['mqtt'] } } };
    const second = rig({ maxSeconds: 3600, wallOffset: 50 * MINUTE });
    second.supervisor.load([linked('Q')], saved);
    await second.run(2 * HOUR);
    const missing = second.changes.find((c) => c.supervision === 'missing')!;
    // Fell silent at wall 0; restarted at wall 50 min; missing by 60 + 15 minutes after falling silent.
    expect(50 * MINUTE + missing.at).toBeLessThanOrEqual(60 * MINUTE + 15 * MINUTE);
    expect(50 * MINUTE + missing.at).toBeGreaterThanOrEqual(60 * MINUTE);
  });
});

describe('store writes at rest', () => {
  it('50 linked buttons reporting every 2 s for an hour are saved at most 4 times', async () => {
    const r = rig();
    const ids = Array.from({ length: 50 }, (_, i) => `BTN${String(i).padStart(2, '0')}`);
    r.supervisor.load(ids.map((id) => linked(id)), undefined);
    const tick = (now: number): void => {
      if (now % 2_000 === 0) for (const id of ids) r.hear(id);
    };
    await r.run(MINUTE, tick, 1_000);
    expect(r.supervisor.counts().online).toBe(50);
    const before = r.saves.length;
    await r.run(MINUTE + HOUR, tick, 1_000);
    expect(r.saves.length - before).toBeLessThanOrEqual(4);
    expect(r.saves.length - before).toBeGreaterThanOrEqual(3);
    expect(SAVE_INTERVAL_MS).toBe(15 * MINUTE);
    expect(Object.keys(r.saves.at(-1)!.devices)).toHaveLength(50);
  });

  it('a change of supervision is saved at once', async () => {
    const r = rig();
    r.supervisor.load([linked('C')], undefined);
    r.hear('C');
    await new Promise((resolve) => setImmediate(resolve));
    const before = r.saves.length;
    expect(before).toBeGreaterThanOrEqual(1);
    r.up.set('mqtt', false);
    r.clock.now += SWEEP_MS;
    r.supervisor.sweep();
    expect(r.supervision('C')).toBe('unknown');
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.saves.length).toBe(before + 1);
  });
});

describe('what is no report', () => {
  it("a retained MQTT message (the broker's old copy) does not make a silent button online", async () => {
    const r = rig({ maxSeconds: 3600 });
    r.supervisor.load([linked('OLD')], undefined);
    r.supervisor.heard({ deviceId: 'OLD', source: 'mqtt', at: r.clock.now, retained: true });
    expect(r.supervision('OLD')).toBe('unknown');
    expect(r.supervisor.liveness('OLD')?.lastHeard).toBeNull();
    await r.run(2 * HOUR);
    expect(r.supervision('OLD')).toBe('missing');
  });
});

describe('what is saved', () => {
  it('a battery that is no whole percent is never taken, so every save stays one the store accepts', async () => {
    const { heardSectionSchema } = await import('../../src/store/schema.js');
    const r = rig();
    r.supervisor.load([linked('F')], undefined);
    r.hear('F', 'mqtt', { battery: 1.4 });
    r.hear('F', 'mqtt', { battery: 60 });
    r.hear('F', 'mqtt', { battery: 250 });
    await r.run(SAVE_INTERVAL_MS + SWEEP_MS);
    expect(r.supervisor.liveness('F')?.battery).toBe(60);
    expect(r.saves.length).toBeGreaterThan(0);
    for (const section of r.saves) expect(heardSectionSchema.safeParse(section).success).toBe(true);
  });
});

describe('an outage is never learned as an interval', () => {
  it('after a missing episode the deadline is what it was before it', async () => {
    const r = rig();
    r.supervisor.load([linked('B1')], undefined);
    await reporting(r, 'B1', 1_000, 5 * MINUTE);
    const before = r.supervisor.liveness('B1')?.deadlineSeconds;
    expect(before).toBe(62);
    // Away for ten minutes: missing, then back at its old pace.
    const away = r.clock.now;
    await r.run(away + 10 * MINUTE);
    expect(r.supervision('B1')).toBe('missing');
    await reporting(r, 'B1', 1_000, r.clock.now + 2 * MINUTE);
    expect(r.supervision('B1')).toBe('online');
    expect(r.supervisor.liveness('B1')?.deadlineSeconds).toBe(before);
  });

  it('a gap that spans the source being down is no interval, even while the button stays online elsewhere', async () => {
    const r = rig();
    r.supervisor.load([linked('B1', 'ble')], undefined);
    await reporting(r, 'B1', 1_000, 5 * MINUTE, 'ble');
    const before = r.supervisor.liveness('B1')?.deadlineSeconds;
    // The radio is down for 40 s (an adapter reset): no report meanwhile.
    r.up.set('ble', false);
    await r.run(r.clock.now + 40_000);
    expect(r.supervision('B1')).toBe('unknown');
    r.up.set('ble', true);
    await reporting(r, 'B1', 1_000, r.clock.now + MINUTE, 'ble');
    expect(r.supervisor.liveness('B1')?.deadlineSeconds).toBe(before);
    // Online through a gateway that heard it lately while the radio drops for 30 s: the gap the
    // radio's next report ends is still no interval of the button's.
    const both = rig();
    both.supervisor.load([linked('B2', 'ble')], undefined);
    await reporting(both, 'B2', 1_000, 5 * MINUTE, 'ble');
    both.hear('B2', 'ble-gateway:hall');
    both.up.set('ble', false);
    await both.run(both.clock.now + 30_000);
    expect(both.supervision('B2')).toBe('online');
    both.up.set('ble', true);
    both.hear('B2', 'ble');
    expect(both.supervisor.liveness('B2')?.deadlineSeconds).toBe(62);
  });

  it('a gap while the button stays online and its sources work is learned as before', async () => {
    const r = rig();
    r.supervisor.load([linked('B1')], undefined);
    await reporting(r, 'B1', 1_000, 5 * MINUTE);
    r.clock.now += 40_000;
    r.hear('B1');
    expect(r.supervisor.liveness('B1')?.deadlineSeconds).toBe(140);
  });
});

describe('the report that links a button', () => {
  it('counts as heard, with its battery, as soon as the link is stored', () => {
    const r = rig();
    r.supervisor.load([], undefined);
    r.clock.now = 10_000;
    r.hear('NEW', 'ble', { battery: 87 });
    r.clock.now = 12_000;
    r.supervisor.deviceChanged(linked('NEW', 'ble'));
    expect(r.supervisor.liveness('NEW')).toMatchObject({ supervision: 'online', battery: 87, lastHeard: new Date(WALL_ORIGIN + 10_000).toISOString() });
  });

  it('a button linked from the command line and never heard stays unknown', () => {
    const r = rig();
    r.supervisor.load([], undefined);
    r.supervisor.deviceChanged(linked('CLI', 'cli'));
    expect(r.supervisor.liveness('CLI')).toMatchObject({ supervision: 'unknown', battery: null, lastHeard: null });
  });
});

describe('a BTHome button that says it is trigger based', () => {
  it('is unsupervised unless its profile gives a deadline or says triggerOnly false', async () => {
    const r = rig({ profiles: [{ name: 'blu' }, { name: 'blu-beacon', supervisionSeconds: 600 }, { name: 'blu-steady', triggerOnly: false }] });
    r.supervisor.load([linked('T1'), linked('T2'), linked('T3')], undefined);
    r.supervisor.heard({ deviceId: 'T1', source: 'ble', at: r.clock.now, profile: 'blu', triggerBased: true });
    r.supervisor.heard({ deviceId: 'T2', source: 'ble', at: r.clock.now, profile: 'blu-beacon', triggerBased: true });
    r.supervisor.heard({ deviceId: 'T3', source: 'ble', at: r.clock.now, profile: 'blu-steady', triggerBased: true });
    await r.run(3 * HOUR);
    expect(r.supervision('T1')).toBe('unsupervised');
    expect(r.supervision('T2')).toBe('missing');
    expect(r.supervision('T3')).toBe('missing');
  });
});

describe('a flood of made-up ids', () => {
  it('never pushes a linked button out of supervision', async () => {
    const r = rig();
    r.supervisor.load([linked('L1'), linked('L2', 'ble-gateway:hall')], undefined);
    for (let i = 0; i < 10_000; i++) r.hear(`STRANGER-${i}`, i % 2 === 0 ? 'mqtt' : `ble-gateway:made-up-${i}`);
    await r.run(MINUTE, (now) => {
      if (now % (10 * 1000) === 0) {
        r.hear('L1');
        r.hear('L2', 'ble-gateway:hall');
      }
    });
    expect(r.supervisor.counts()).toMatchObject({ linked: 2, online: 2 });
    expect(r.supervision('L1')).toBe('online');
    expect(r.supervision('L2')).toBe('online');
    expect(r.supervision('STRANGER-9999')).toBeUndefined();
  });
});
