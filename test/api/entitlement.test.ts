import { describe, expect, it } from 'vitest';
import { isEntitled } from '../../src/api/entitlement.js';
import type { Subscription } from '../../src/api/types.js';

const C = 42;
let nextId = 1;
function sub(status: string, customerId: number, dependantCustomerIds: number[] = []): Subscription {
  return { id: nextId++, customerId, subscriptionTypeId: 1, status, dependantCustomerIds };
}

describe('isEntitled', () => {
  it.each<[string, Subscription[], boolean]>([
    ['an active subscription of its own', [sub('active', C)], true],
    ['an active subscription naming it as a dependant', [sub('active', 7, [3, C])], true],
    ['cancelled', [sub('cancelled', C)], false],
    ['trialing', [sub('trialing', C)], false],
    ['an empty status', [sub('', C)], false],
    ['ACTIVE in capitals', [sub('ACTIVE', C)], false],
    ['Active capitalised', [sub('Active', C)], false],
    ['active with a leading space', [sub(' active', C)], false],
    ['active with a trailing space', [sub('active ', C)], false],
    ['a cancelled subscription naming it as a dependant', [sub('cancelled', 7, [C])], false],
    ['an empty list', [], false],
    ['an active subscription of another customer without it among dependants', [sub('active', 7, [8, 9])], false],
    ['an active subscription of another customer with no dependants', [sub('active', 7)], false],
    ['mixed: cancelled own and active foreign without it', [sub('cancelled', C), sub('active', 7, [8])], false],
    ['mixed: cancelled own and active foreign with it', [sub('cancelled', C), sub('active', 7, [C])], true],
    ['mixed: trialing, ACTIVE, then active own', [sub('trialing', C), sub('ACTIVE', C), sub('active', C)], true],
  ])('%s: %s', (_name, subscriptions, expected) => {
    expect(isEntitled(C, subscriptions)).toBe(expected);
  });

  it('does not take a dependant of the subscription for its holder', () => {
    expect(isEntitled(7, [sub('active', 3, [C])])).toBe(false);
  });
});
