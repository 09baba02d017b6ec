import { describe, expect, it } from 'vitest';
import { freshCount, judgeInstall, judgeSample, type StopCount, type UnitSample } from '../../src/update/verdict.js';

// The judge's decisions, sample by sample, against what systemd shows in each case (the values are
// those `systemctl show` gives: ExecMainCode 1 exited, 2 killed, 3 dumped).

const START = 1_000_000;
const PROBATION = 600;
const sample = (over: Partial<UnitSample>): UnitSample => ({
  activeState: 'active',
  subState: 'running',
  result: 'success',
  restarts: 0,
  invocationId: 'a1',
  mainCode: 0,
  mainStatus: 0,
  startedAtMs: START,
  nowMs: START + 5_000,
  ...over,
});
const count0: StopCount = { stops: 0, ended: 0, restarts: 0, lastRestarts: 0, seen: [] };

describe('judging a probation', () => {
  it('goes on watching a daemon that is ready', () => {
    expect(judgeSample(count0, sample({}), START, PROBATION)).toEqual({ kind: 'watching', count: count0 });
  });

  it('keeps the version once the probation is over and the daemon is active', () => {
    expect(judgeSample(count0, sample({ nowMs: START + PROBATION * 1000 }), START, PROBATION)).toMatchObject({ kind: 'kept' });
    expect(judgeSample(count0, sample({ nowMs: START + PROBATION * 1000 - 1 }), START, PROBATION).kind).toBe('watching');
  });

  it('does not keep a version that is restarting when the probation ends', () => {
    const restarting = sample({ activeState: 'activating', subState: 'auto-restart', result: 'exit-code', restarts: 1, mainCode: 1, mainStatus: 1, nowMs: START + PROBATION * 1000 });
    expect(judgeSample(count0, restarting, START, PROBATION)).toEqual({ kind: 'watching', count: { stops: 1, ended: 1, restarts: 1, lastRestarts: 1, seen: ['a1'] } });
  });

  it('keeps a version an operator stopped by hand, holding nothing against it', () => {
    expect(judgeSample(count0, sample({ activeState: 'inactive', subState: 'dead', nowMs: START + PROBATION * 1000 }), START, PROBATION)).toMatchObject({ kind: 'kept' });
    expect(judgeSample(count0, sample({ activeState: 'inactive', subState: 'dead-before-auto-restart', nowMs: START + PROBATION * 1000 }), START, PROBATION).kind).toBe('watching');
  });

  it('fails at once on a refusal of the settings (exit status 2) or of the store (exit status 65)', () => {
    const settings = sample({ activeState: 'activating', subState: 'auto-restart', result: 'exit-code', restarts: 1, mainCode: 1, mainStatus: 2 });
    expect(judgeSample(count0, settings, START, PROBATION)).toEqual({ kind: 'failed', reason: 'refused the settings the version before ran with', fact: 'Result=exit-code, exit status 2' });
    const store = sample({ activeState: 'activating', subState: 'auto-restart', result: 'exit-code', restarts: 1, mainCode: 1, mainStatus: 65 });
    expect(judgeSample(count0, store, START, PROBATION)).toMatchObject({ kind: 'failed', reason: 'refused the store the version before wrote' });
  });

  it('does not take a killed process whose signal number is 2 for a refusal', () => {
    const interrupted = sample({ activeState: 'activating', subState: 'auto-restart', result: 'signal', restarts: 1, mainCode: 2, mainStatus: 2 });
    expect(judgeSample(count0, interrupted, START, PROBATION).kind).toBe('watching');
  });

  it('counts each stop the moment it ends, and fails on the third, whatever the kind of stop', () => {
    // As systemd 257 shows an exit at start: failed before the restart, waiting to restart, started again.
    const life = (id: string, restarts: number, over: Partial<UnitSample>): UnitSample[] => [
      sample({ invocationId: id, restarts, activeState: 'activating', subState: 'start', ...over, result: 'success', mainCode: 0, mainStatus: 0 }),
      sample({ invocationId: id, restarts, activeState: 'failed', subState: 'failed-before-auto-restart', ...over }),
      sample({ invocationId: id, restarts, activeState: 'activating', subState: 'auto-restart', ...over }),
    ];
    const samples = [
      ...life('i1', 0, { result: 'exit-code', mainCode: 1, mainStatus: 1 }),
      ...life('i2', 1, { result: 'watchdog', mainCode: 2, mainStatus: 6 }),
      ...life('i3', 2, { result: 'core-dump', mainCode: 3, mainStatus: 6 }),
    ];
    let count = count0;
    const stopsSeen: number[] = [];
    for (const each of samples) {
      const verdict = judgeSample(count, each, START, PROBATION);
      if (verdict.kind === 'failed') {
        expect(verdict).toEqual({ kind: 'failed', reason: 'stopped 3 times without being asked', fact: '3 stops, NRestarts=2, the last: Result=core-dump, core dump, signal 6' });
        expect(each).toMatchObject({ invocationId: 'i3', subState: 'failed-before-auto-restart' });
        expect(stopsSeen).toEqual([0, 1, 1, 1, 2, 2, 2]);
        return;
      }
      if (verdict.kind !== 'watching') throw new Error(`judged ${verdict.kind}`);
      count = verdict.count;
      stopsSeen.push(count.stops);
    }
    throw new Error('never failed');
  });

  it('counts the stops no sample saw from NRestarts (a start that dies within a second)', () => {
    expect(judgeSample(count0, sample({ restarts: 3, invocationId: 'i4' }), START, PROBATION)).toMatchObject({ kind: 'failed', reason: 'stopped 3 times without being asked' });
  });

  it('counts one stop once, seen ended and then restarted', () => {
    const ended = judgeSample(count0, sample({ invocationId: 'i1', activeState: 'activating', subState: 'auto-restart', result: 'signal', mainCode: 2, mainStatus: 9 }), START, PROBATION);
    if (ended.kind !== 'watching') throw new Error(ended.kind);
    const again = judgeSample(ended.count, sample({ invocationId: 'i2', restarts: 1 }), START, PROBATION);
    expect(again).toMatchObject({ kind: 'watching', count: { stops: 1 } });
  });

  it('keeps counting across a restart by hand, which sets NRestarts back to 0', () => {
    const before: StopCount = { stops: 2, ended: 2, restarts: 2, lastRestarts: 2, seen: ['i1', 'i2'] };
    const byHand = judgeSample(before, sample({ restarts: 0, invocationId: 'b2' }), START, PROBATION);
    expect(byHand).toEqual({ kind: 'watching', count: { ...before, lastRestarts: 0 } });
    if (byHand.kind !== 'watching') return;
    expect(judgeSample(byHand.count, sample({ restarts: 1, invocationId: 'b3' }), START, PROBATION)).toMatchObject({ kind: 'failed' });
  });

  it('fails a start that is not ready within 150 s, by its own clock or by systemd start timeout', () => {
    const starting = sample({ activeState: 'activating', subState: 'start', startedAtMs: START, nowMs: START + 150_000 });
    expect(judgeSample(count0, starting, START, PROBATION)).toEqual({ kind: 'failed', reason: 'not ready within 150 s', fact: 'activating for 150 s without READY=1' });
    expect(judgeSample(count0, { ...starting, nowMs: START + 149_999 }, START, PROBATION).kind).toBe('watching');
    const timedOut = sample({ activeState: 'activating', subState: 'auto-restart', result: 'timeout', restarts: 1, mainCode: 2, mainStatus: 15 });
    expect(judgeSample(count0, timedOut, START, PROBATION)).toMatchObject({ kind: 'failed', reason: 'not ready within 150 s' });
  });

  it('fails a unit systemd gave up on (failed, no restart scheduled), counting it once', () => {
    const gaveUp = sample({ activeState: 'failed', subState: 'failed', result: 'start-limit-hit', restarts: 0, mainCode: 1, mainStatus: 1 });
    expect(judgeSample(count0, gaveUp, START, PROBATION)).toMatchObject({ kind: 'failed', reason: 'stopped without being asked, and systemd gave up restarting it' });
  });

  it('does not take the moment systemd 254 and later show failed before each restart for systemd giving up', () => {
    const beforeRestart = sample({ activeState: 'failed', subState: 'failed-before-auto-restart', result: 'exit-code', mainCode: 1, mainStatus: 1 });
    expect(judgeSample(count0, beforeRestart, START, PROBATION)).toMatchObject({ kind: 'watching', count: { stops: 1 } });
  });

  it('starts a count from NRestarts as it is when the probation begins', () => {
    expect(freshCount({ restarts: 4 })).toEqual({ stops: 0, ended: 0, restarts: 0, lastRestarts: 4, seen: [] });
  });
});

describe('judging the installation of the new version', () => {
  const plan = { previous: '1.0', next: '1.1' };
  it('waits while apt or dpkg is at work, whatever the package says', () => {
    expect(judgeInstall({ version: '1.1', status: 'iU ', busy: true, nowMs: START }, plan, START - 60_000)).toEqual({ kind: 'installing', idleSinceMs: undefined });
  });
  it('is installed once dpkg says so at the new version', () => {
    expect(judgeInstall({ version: '1.1', status: 'ii ', busy: false, nowMs: START }, plan, undefined)).toEqual({ kind: 'installed' });
  });
  it('is undone when dpkg went back to the version before by itself', () => {
    expect(judgeInstall({ version: '1.0', status: 'ii ', busy: false, nowMs: START }, plan, undefined)).toEqual({ kind: 'undone' });
  });
  it('fails once dpkg has been idle 30 s with the package between versions', () => {
    const half = { version: '1.1', status: 'iF ', busy: false };
    expect(judgeInstall({ ...half, nowMs: START }, plan, undefined)).toEqual({ kind: 'installing', idleSinceMs: START });
    expect(judgeInstall({ ...half, nowMs: START + 29_999 }, plan, START).kind).toBe('installing');
    expect(judgeInstall({ ...half, nowMs: START + 30_000 }, plan, START)).toEqual({
      kind: 'failed',
      reason: 'the update did not install',
      fact: 'dpkg idle for 30 s with the package 1.1 with dpkg status "iF"',
    });
  });
});
