import { describe, expect, it } from 'vitest';
import { belongsMessage, otherOwner } from '../../src/pairing/ownership.js';
import type { DeviceRecord, DeviceState } from '../../src/store/record.js';

// One button, one link: whom a button belongs to, by its record.

function record(state: DeviceState, customerId: number): DeviceRecord {
  const base: DeviceRecord = { deviceId: 'BTN', state, customerId, source: 'mqtt', updatedAt: '2026-01-01T00:00:00.000Z' };
  return state === 'linked' ? { ...base, linkId: 5, linkedAt: base.updatedAt } : base;
}

describe('otherOwner', () => {
  it.each<[string, DeviceRecord | undefined, number | undefined]>([
    ['no record: nobody', undefined, undefined],
    ['linked to the same customer', record('linked', 77), undefined],
    ['linked to another customer', record('linked', 70), 70],
    ['linking for another customer (a request may be out)', record('linking', 70), 70],
    ['failed for another customer (an answer may have been lost)', record('failed', 70), 70],
    ['failed for the same customer', record('failed', 77), undefined],
    ['rejected for another customer: the API linked nothing', record('rejected', 70), undefined],
  ])('%s', (_name, given, expected) => {
    expect(otherOwner(given, 77)).toBe(expected);
  });
});

describe('belongsMessage', () => {
  it('names the customer the button belongs to, and says nothing was posted', () => {
    expect(belongsMessage(record('linked', 70), 77)).toMatch(/^BTN belongs to customer 70, not 77: it is linked to customer 70 \(link 5\).*nothing was posted$/);
    expect(belongsMessage(record('failed', 70), 77)).toContain('panic-pair forget BTN');
  });
});
