import { describe, expect, it } from 'vitest';
import { RequestSlots } from '../../src/api/request-slots.js';

describe('RequestSlots', () => {
  it('grants up to max at once and hands freed slots out in order', async () => {
    const slots = new RequestSlots(2);
    const a = await slots.acquire();
    const b = await slots.acquire();
    const order: string[] = [];
    const c = slots.acquire().then((release) => (order.push('c'), release));
    const d = slots.acquire().then((release) => (order.push('d'), release));
    expect(slots.active).toBe(2);
    a();
    a(); // a second release of the same slot changes nothing
    const releaseC = await c;
    expect(order).toEqual(['c']);
    expect(slots.active).toBe(2);
    b();
    const releaseD = await d;
    expect(order).toEqual(['c', 'd']);
    releaseC();
    releaseD();
    expect(slots.active).toBe(0);
  });

  it('drops a waiter whose signal aborts, with the signal reason', async () => {
    const slots = new RequestSlots(1);
    const first = await slots.acquire();
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    first();
    expect(slots.active).toBe(0);
    const again = await slots.acquire();
    expect(slots.active).toBe(1);
    again();
  });
});
