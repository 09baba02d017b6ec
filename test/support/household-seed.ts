import type { Seed } from '../../src/simulator/index.js';

// Households for the simulator, the main case first:
// - 70 holds subscription 10, active, with dependants 77 and 78;
// - 77's own list shows that subscription (77 is entitled by it);
// - 78's own list holds only a suspended subscription (a member not entitled);
// - 79 is entitled by a subscription of its own and in no household of 70's;
// - 80 holds a cancelled subscription with dependants 81 and 82, and an active one without;
// - 81 is entitled by its own list.
export const HOUSEHOLD_SEED: Seed = {
  customers: [
    { id: 70, subscriptions: [{ id: 10, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [77, 78] }] },
    { id: 77, subscriptions: [{ id: 10, customerId: 70, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [77, 78] }] },
    { id: 78, subscriptions: [{ id: 11, subscriptionTypeId: 1, status: 'suspended', dependantCustomerIds: [] }] },
    { id: 79, subscriptions: [{ id: 12, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] }] },
    {
      id: 80,
      subscriptions: [
        { id: 20, subscriptionTypeId: 1, status: 'cancelled', dependantCustomerIds: [81, 82] },
        { id: 21, subscriptionTypeId: 2, status: 'active', dependantCustomerIds: [] },
      ],
    },
    { id: 81, subscriptions: [{ id: 22, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] }] },
  ],
};
