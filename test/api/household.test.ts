import { describe, expect, it } from 'vitest';
import { householdOf, type HouseholdMember } from '../../src/api/household.js';
import type { Subscription } from '../../src/api/types.js';

const C = 70;
let nextId = 1;
function sub(status: string, customerId: number, dependantCustomerIds: number[] = []): Subscription {
  return { id: nextId++, customerId, subscriptionTypeId: 1, status, dependantCustomerIds };
}
const hub: HouseholdMember = { customerId: C, role: 'hub' };

describe('householdOf', () => {
  it.each<[string, Subscription[], HouseholdMember[]]>([
    ['an empty list: the hub alone', [], [hub]],
    ['its own active subscription without dependants', [sub('active', C)], [hub]],
    [
      'its own active subscription with dependants',
      [sub('active', C, [77, 78])],
      [hub, { customerId: 77, role: 'dependant' }, { customerId: 78, role: 'dependant' }],
    ],
    [
      'a dependant on another holder: the holder and the other dependants',
      [sub('active', 60, [C, 61])],
      [hub, { customerId: 60, role: 'holder' }, { customerId: 61, role: 'dependant' }],
    ],
    ['its cancelled subscription with dependants: the hub alone', [sub('cancelled', C, [77, 78])], [hub]],
    ['suspended naming it as a dependant: the hub alone', [sub('suspended', 60, [C])], [hub]],
    ['ACTIVE in capitals', [sub('ACTIVE', C, [77])], [hub]],
    ['active with a trailing space', [sub('active ', C, [77])], [hub]],
    ['an active subscription that does not name it', [sub('active', 60, [61, 62])], [hub]],
    [
      'cancelled with dependants beside active without: the active one only',
      [sub('cancelled', C, [77, 78]), sub('active', C, [])],
      [hub],
    ],
    [
      'two active subscriptions: every customer once',
      [sub('active', C, [77]), sub('active', 60, [C, 77, 79])],
      [hub, { customerId: 77, role: 'dependant' }, { customerId: 60, role: 'holder' }, { customerId: 79, role: 'dependant' }],
    ],
    [
      'a dependant of one subscription who holds another is listed as holder',
      [sub('active', C, [60]), sub('active', 60, [C])],
      [hub, { customerId: 60, role: 'holder' }],
    ],
    ['the hub named as its own dependant stays the hub', [sub('active', C, [C])], [hub]],
  ])('%s', (_name, subscriptions, expected) => {
    expect(householdOf(C, subscriptions)).toEqual(expected);
  });
});
