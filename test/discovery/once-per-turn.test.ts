import { describe, expect, it } from 'vitest';
import { oncePerTurn } from '../../src/discovery/mqtt-source.js';

describe('oncePerTurn', () => {
  it('reads the clock once a turn of the event loop: messages handled together share its time', async () => {
    let reads = 0;
    const clock = oncePerTurn(() => ++reads * 1000);
    expect([clock(), clock(), clock()]).toEqual([1000, 1000, 1000]);
    await new Promise((resolve) => setImmediate(resolve));
    expect([clock(), clock()]).toEqual([2000, 2000]);
    expect(reads).toBe(2);
  });
});
