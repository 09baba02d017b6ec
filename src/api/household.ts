import type { Subscription } from './types.js';

/** `hub` is the hub's own customer; the others are named on one of its active subscriptions. */
export type HouseholdRole = 'hub' | 'holder' | 'dependant';

export interface HouseholdMember {
  customerId: number;
  role: HouseholdRole;
}

/**
 * The household of C is every customer named, as holder or dependant, on a
 * subscription of C's list whose status is exactly `active` and which names C. C comes first and
 * is always there (the hub's customer); whether C may be linked to is the entitlement rule's
 * answer, not this one. A list with no such subscription leaves C alone: fail closed.
 */
export function householdOf(customerId: number, subscriptions: readonly Subscription[]): HouseholdMember[] {
  const roles = new Map<number, HouseholdRole>([[customerId, 'hub']]);
  for (const subscription of subscriptions) {
    if (subscription.status !== 'active') continue;
    const namesHub = subscription.customerId === customerId || subscription.dependantCustomerIds.includes(customerId);
    if (!namesHub) continue;
    // A holder of one subscription who is a dependant on another is listed as holder.
    if (roles.get(subscription.customerId) !== 'hub') roles.set(subscription.customerId, 'holder');
    for (const dependant of subscription.dependantCustomerIds) {
      if (!roles.has(dependant)) roles.set(dependant, 'dependant');
    }
  }
  return [...roles].map(([id, role]) => ({ customerId: id, role }));
}

/** The household before any answer, or after one that cannot be read: the hub's customer alone. */
export function hubAlone(customerId: number): HouseholdMember[] {
  return [{ customerId, role: 'hub' }];
}
