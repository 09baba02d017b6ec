import { describe, expect, it } from 'vitest';
import { RECENT_FAILURES_KEPT, RecentFailures } from '../../src/pairing/recent-failures.js';

// A failed link holds back its device's sightings for a while; the failures kept are bounded in
// count, the oldest going first.

describe('RecentFailures', () => {
  it('stays at its cap with 10,000 distinct ids, keeping the latest failures', () => {
    const failures = new RecentFailures();
    for (let i = 0; i < 10_000; i++) failures.failed(`STRANGER-${i}`, i);
    expect(failures.size).toBe(RECENT_FAILURES_KEPT);
    expect(failures.get('STRANGER-9999')).toBe(9_999);
    expect(failures.get(`STRANGER-${10_000 - RECENT_FAILURES_KEPT}`)).toBe(10_000 - RECENT_FAILURES_KEPT);
    expect(failures.get(`STRANGER-${10_000 - RECENT_FAILURES_KEPT - 1}`)).toBeUndefined();
  });

  it('a device that fails again is the newest: the flood pushes out older failures first', () => {
    const failures = new RecentFailures(3);
    failures.failed('A', 1);
    failures.failed('B', 2);
    failures.failed('A', 3);
    failures.failed('C', 4);
    failures.failed('D', 5);
    expect(failures.get('B')).toBeUndefined();
    expect([failures.get('A'), failures.get('C'), failures.get('D')]).toEqual([3, 4, 5]);
  });

  it('a link or a forget clears the failure', () => {
    const failures = new RecentFailures();
    failures.failed('A', 1);
    failures.clear('A');
    expect(failures.get('A')).toBeUndefined();
    expect(failures.size).toBe(0);
  });
});
