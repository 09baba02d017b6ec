import { describe, expect, it } from 'vitest';
import { LATEST_REPORTS_KEPT, LatestReports } from '../../src/supervision/latest-reports.js';

// The latest report of buttons not linked yet: bounded in count.

describe('LatestReports', () => {
  it('stays at its cap with 10,000 distinct ids, the newest kept', () => {
    const reports = new LatestReports();
    for (let i = 0; i < 10_000; i++) reports.remember({ deviceId: `STRANGER-${i}`, source: 'mqtt', at: i });
    expect(reports.size).toBe(LATEST_REPORTS_KEPT);
    expect(reports.take('STRANGER-9999')).toMatchObject({ at: 9_999 });
    expect(reports.take('STRANGER-0')).toBeUndefined();
  });
});
