import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay, type RetryPolicy } from '../../src/api/retry-delay.js';

const policy: RetryPolicy = { limit: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };
const NOW = Date.parse('2025-03-01T12:00:00Z');
const fixed = (value: number) => () => value;

describe('retryDelay: backoff', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ limit: 4, baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 });
  });

  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [5, 1_000],
    [12, 1_000],
  ])('retry %i has a ceiling of %i ms', (retry, ceiling) => {
    // random just below 1 reaches the top of the range; 0 the bottom.
    expect(retryDelay({ retry, now: NOW, random: fixed(0.999999), policy })).toBe(Math.floor(0.999999 * ceiling));
    expect(retryDelay({ retry, now: NOW, random: fixed(0), policy })).toBe(0);
  });

  it('spreads the delay over the whole range (full jitter)', () => {
    expect(retryDelay({ retry: 3, now: NOW, random: fixed(0.5), policy })).toBe(200);
    expect(retryDelay({ retry: 3, now: NOW, random: fixed(0.25), policy })).toBe(100);
  });

  it('stays within [0, ceiling] even with a faulty jitter source', () => {
    expect(retryDelay({ retry: 1, now: NOW, random: fixed(7), policy })).toBe(100);
    expect(retryDelay({ retry: 1, now: NOW, random: fixed(-3), policy })).toBe(0);
  });

  it('ignores Retry-After on statuses other than 429 and 503', () => {
    expect(retryDelay({ retry: 1, status: 500, retryAfter: '3', now: NOW, random: fixed(0.5), policy })).toBe(50);
    expect(retryDelay({ retry: 1, status: 502, retryAfter: '3', now: NOW, random: fixed(0.5), policy })).toBe(50);
  });

  it('falls back to backoff when Retry-After is absent or unreadable', () => {
    expect(retryDelay({ retry: 2, status: 429, now: NOW, random: fixed(0.5), policy })).toBe(100);
    expect(retryDelay({ retry: 2, status: 503, retryAfter: 'soon', now: NOW, random: fixed(0.5), policy })).toBe(100);
  });
});

describe('retryDelay: Retry-After', () => {
  it('honours delay-seconds on 429 and 503', () => {
    expect(retryDelay({ retry: 1, status: 429, retryAfter: '2', now: NOW, random: fixed(0.5), policy })).toBe(2_000);
    expect(retryDelay({ retry: 3, status: 503, retryAfter: '0', now: NOW, random: fixed(0.5), policy })).toBe(0);
  });

  it('honours an HTTP date', () => {
    const at = new Date(NOW + 3_000).toUTCString();
    expect(retryDelay({ retry: 1, status: 503, retryAfter: at, now: NOW, random: fixed(0.5), policy })).toBe(3_000);
  });

  it('caps Retry-After at maxRetryAfterMs, as seconds and as a date', () => {
    expect(retryDelay({ retry: 1, status: 429, retryAfter: '3600', now: NOW, random: fixed(0.5), policy })).toBe(5_000);
    const later = new Date(NOW + 86_400_000).toUTCString();
    expect(retryDelay({ retry: 1, status: 429, retryAfter: later, now: NOW, random: fixed(0.5), policy })).toBe(5_000);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['5', 5_000],
    [' 12 ', 12_000],
    ['0.25', 250],
    ['Sat, 01 Mar 2025 12:00:10 GMT', 10_000],
    ['Sat, 01 Mar 2025 11:00:00 GMT', 0],
  ])('%j is %i ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it.each([undefined, '', '-5', 'soon', '1e3', '12abc'])('%j is unreadable', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});
