import { describe, expect, it } from 'vitest';
import { describeNetworkError } from '../../src/api/network-errors.js';
import { wallClockIsUnset, wallTimeOf } from '../../src/clock.js';
import { isPassingFailure, outageRetryMs, outageText, waitText } from '../../src/pairing/outage.js';

describe('what `pair` says and does through an outage', () => {
  const api = 'https://api.example.com';

  it('names the API and the reason, without the attempt count of the client', () => {
    expect(waitText({ api, reason: 'connection refused (5 attempts)', inMs: 4_000 })).toBe(
      'the API at https://api.example.com is unreachable (connection refused); trying again in 4 s',
    );
    expect(outageText(api, 'the API answered 503 (5 attempts)')).toBe('the API at https://api.example.com answered 503');
    expect(outageText(api, 'the API did not answer within 5 s (5 attempts)')).toBe('the API at https://api.example.com did not answer within 5 s');
  });

  it('waits 1 s, 2 s, then 4 s each time', () => {
    expect([1, 2, 3, 4, 10].map(outageRetryMs)).toEqual([1_000, 2_000, 4_000, 4_000, 4_000]);
  });

  it('tries again only after a passing failure; a refusal is an answer', () => {
    expect(isPassingFailure({ ok: false, deviceId: 'A', kind: 'transient', message: 'connection refused' })).toBe(true);
    for (const kind of ['not-entitled', 'rejected', 'unauthorized', 'customer-not-found', 'invalid-reply'] as const) {
      expect(isPassingFailure({ ok: false, deviceId: 'A', kind, message: '' })).toBe(false);
    }
  });

  it('a certificate not yet valid (an unset clock) is retried; other TLS failures are not', () => {
    expect(describeNetworkError({ code: 'CERT_NOT_YET_VALID' }, 5_000)).toMatchObject({ retryable: true, message: expect.stringContaining('not yet valid') });
    expect(describeNetworkError({ code: 'CERT_HAS_EXPIRED' }, 5_000)).toMatchObject({ retryable: false });
  });
});

describe('the two clocks', () => {
  it('an instant on the monotonic clock, stamped on the wall clock', () => {
    expect(wallTimeOf(900, { monotonic: () => 1_000, wall: () => 5_000_000 })).toBe(4_999_900);
  });

  it('a wall clock earlier than the build is unset; an unknown build time says nothing', () => {
    expect(wallClockIsUnset(Date.UTC(2026, 0, 1), Date.UTC(1970, 0, 2))).toBe(true);
    expect(wallClockIsUnset(Date.UTC(2026, 0, 1), Date.UTC(2026, 5, 1))).toBe(false);
    expect(wallClockIsUnset(undefined, 0)).toBe(false);
  });
});
