import { describe, expect, it } from 'vitest';
import { IMITATED_FOR_MS, imitatedWords, KeyedState } from '../../src/authentication/keyed-state.js';

const key = Buffer.alloc(16, 3);

describe('what the hub keeps of a keyed button', () => {
  it('no counted report without a saved counter; a saved one counted an hour before now', () => {
    expect(new KeyedState(key, true, undefined, 5_000_000).last).toBeUndefined();
    expect(new KeyedState(key, true, 12, 5_000_000).last).toEqual({ counter: 12, at: 5_000_000 - IMITATED_FOR_MS });
  });

  it('imitated for an hour after a refusal', () => {
    const state = new KeyedState(key, true, undefined, 0);
    expect(state.imitated(10_000_000)).toBe(false);
    state.refusedAt = 10_000_000;
    expect(state.imitated(10_000_000 + IMITATED_FOR_MS - 1)).toBe(true);
    expect(state.imitated(10_000_000 + IMITATED_FOR_MS)).toBe(false);
  });

  it('in words: a failed check unless its counter went back', () => {
    const state = new KeyedState(key, true, undefined, 0);
    expect(imitatedWords('B1', state)).toBe('button B1 imitated: reports of B1 failed authentication: something may be imitating it');
    state.wentBack = true;
    expect(imitatedWords('B1', state)).toBe('button B1 imitated: counter went back (battery changed?): pair it again with its key');
  });
});
