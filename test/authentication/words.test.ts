import { describe, expect, it } from 'vitest';
import { reportsWords } from '../../src/authentication/words.js';

const counts = { verified: 12, forged: 0, replayed: 0, plain: 0 };

describe('a linked button’s reports in words', () => {
  it('nothing for a row that is no linked button, or of a daemon that says nothing of keys', () => {
    expect(reportsWords({ state: 'linking', authenticated: true, reports: counts })).toBeUndefined();
    expect(reportsWords({ state: 'linked' })).toBeUndefined();
  });

  it('"not authenticated" for a button linked without a key', () => {
    expect(reportsWords({ state: 'linked', authenticated: false })).toBe('not authenticated');
    expect(reportsWords({ state: 'linked', authenticated: true })).toBe('not authenticated');
  });

  it('the verified count, then each kind of refusal that happened, in order', () => {
    expect(reportsWords({ state: 'linked', authenticated: true, reports: counts })).toBe('12 verified');
    expect(reportsWords({ state: 'linked', authenticated: true, reports: { ...counts, plain: 1 } })).toBe('12 verified, 1 plain');
    expect(reportsWords({ state: 'linked', authenticated: true, reports: { verified: 0, forged: 2, replayed: 3, plain: 4 } })).toBe('0 verified, 2 forged, 3 replayed, 4 plain');
    expect(reportsWords({ state: 'linked', authenticated: true, reports: { ...counts, forged: 1 } })).toBe('12 verified, 1 forged');
    expect(reportsWords({ state: 'linked', authenticated: true, reports: { ...counts, replayed: 1 } })).toBe('12 verified, 1 replayed');
  });

  it('"imitated" around them while it is', () => {
    expect(reportsWords({ state: 'linked', authenticated: true, reports: { ...counts, forged: 1 }, imitated: true })).toBe('imitated (12 verified, 1 forged)');
    expect(reportsWords({ state: 'linked', authenticated: true, reports: counts, imitated: false })).toBe('12 verified');
  });
});
