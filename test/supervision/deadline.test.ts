import { describe, expect, it } from 'vitest';
import { deadlineOf, IntervalLearner } from '../../src/supervision/deadline.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

function learnerAfter(instants: number[]): IntervalLearner {
  const learner = new IntervalLearner();
  for (const at of instants) learner.report(at);
  return learner;
}

describe('IntervalLearner', () => {
  it('learns nothing from fewer than four gaps, and the longest from four', () => {
    expect(learnerAfter([0]).longestGap()).toBeUndefined();
    expect(learnerAfter([0, 10 * SECOND, 20 * SECOND, 30 * SECOND]).longestGap()).toBeUndefined();
    expect(learnerAfter([0, 10 * SECOND, 30 * SECOND, 40 * SECOND, 50 * SECOND]).longestGap()).toBe(20 * SECOND);
  });

  it('takes reports closer than a second as one report heard again, no gap', () => {
    const learner = learnerAfter([0, 10 * SECOND, 10 * SECOND + 999, 20 * SECOND, 30 * SECOND]);
    expect(learner.longestGap()).toBeUndefined();
    learner.report(31 * SECOND);
    expect(learner.longestGap()).toBe(10 * SECOND);
  });

  it('remembers the previous report, and learns by default', () => {
    const learner = new IntervalLearner();
    expect(learner.previous()).toBeUndefined();
    learner.report(5 * SECOND);
    expect(learner.previous()).toBe(5 * SECOND);
    for (const at of [15, 25, 35, 45]) learner.report(at * SECOND);
    expect(learner.longestGap()).toBe(10 * SECOND);
  });

  it('does not learn a gap it is told is no interval, but moves on from its report', () => {
    const learner = learnerAfter([0, 10 * SECOND, 20 * SECOND, 30 * SECOND]);
    learner.report(10 * MINUTE, false);
    expect(learner.previous()).toBe(10 * MINUTE);
    expect(learner.longestGap()).toBeUndefined();
    learner.report(10 * MINUTE + 5 * SECOND);
    expect(learner.longestGap()).toBe(10 * SECOND);
  });

  it('forgets a gap sixteen gaps later', () => {
    const instants = [0, 100 * SECOND];
    for (let i = 1; i <= 15; i++) instants.push(100 * SECOND + i * 10 * SECOND);
    const learner = learnerAfter(instants);
    expect(learner.longestGap()).toBe(100 * SECOND);
    learner.report(100 * SECOND + 16 * 10 * SECOND);
    expect(learner.longestGap()).toBe(10 * SECOND);
  });
});

describe('deadlineOf', () => {
  const ceilingMs = 2 * 60 * MINUTE;

  it('takes the profile’s seconds first, as set, not learned', () => {
    expect(deadlineOf({ ceilingMs, profileSeconds: 600, longestGapMs: 10 * SECOND, savedMs: 5 * MINUTE })).toEqual({ ms: 10 * MINUTE, learned: false });
  });

  it('else twice the longest gap and a minute, learned', () => {
    expect(deadlineOf({ ceilingMs, longestGapMs: 10 * MINUTE, savedMs: 5 * MINUTE })).toEqual({ ms: 21 * MINUTE, learned: true });
  });

  it('else the deadline saved before a restart, learned', () => {
    expect(deadlineOf({ ceilingMs, savedMs: 5 * MINUTE })).toEqual({ ms: 5 * MINUTE, learned: true });
  });

  it('else the ceiling, not learned', () => {
    expect(deadlineOf({ ceilingMs })).toEqual({ ms: ceilingMs, learned: false });
  });

  it('never below a minute nor above the ceiling', () => {
    expect(deadlineOf({ ceilingMs, profileSeconds: 10 })).toEqual({ ms: MINUTE, learned: false });
    expect(deadlineOf({ ceilingMs, profileSeconds: 86_400 })).toEqual({ ms: ceilingMs, learned: false });
    expect(deadlineOf({ ceilingMs, savedMs: 1 })).toEqual({ ms: MINUTE, learned: true });
    expect(deadlineOf({ ceilingMs, longestGapMs: ceilingMs })).toEqual({ ms: ceilingMs, learned: true });
  });
});
