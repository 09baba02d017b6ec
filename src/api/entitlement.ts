import type { Subscription } from './types.js';

/**
 * C is entitled when at least one subscription has status exactly `active`
 * and names C as its holder or among its dependants. Everything else fails closed.
 */
export function isEntitled(customerId: number, subscriptions: readonly Subscription[]): boolean {
  return subscriptions.some(
    (subscription) =>
      subscription.status === 'active' &&
      (subscription.customerId === customerId || subscription.dependantCustomerIds.includes(customerId)),
  );
}
