import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { PanicPairError } from '../errors.js';

// The customers the simulator serves. Subscriptions are loose objects: a field the panic-api v2
// specification does not list is passed through to the reply, so clients can be tested with it.

const seedSubscriptionSchema = z.looseObject({
  id: z.int(),
  subscriptionTypeId: z.int(),
  status: z.string(),
  dependantCustomerIds: z.array(z.int()).default([]),
  /** The holder; the customer's own id when left out. */
  customerId: z.int().optional(),
});

const seedCustomerSchema = z.strictObject({
  id: z.int(),
  subscriptions: z.array(seedSubscriptionSchema),
});

export const seedSchema = z
  .strictObject({ customers: z.array(seedCustomerSchema) })
  .refine((seed) => new Set(seed.customers.map((customer) => customer.id)).size === seed.customers.length, {
    message: 'two customers share one id',
    path: ['customers'],
  });

export type Seed = z.input<typeof seedSchema>;

/** A subscription as the API returns it: `customerId` filled in, extra seeded fields kept. */
export type SeededSubscription = {
  id: number;
  customerId: number;
  subscriptionTypeId: number;
  status: string;
  dependantCustomerIds: number[];
} & Record<string, unknown>;

export const DEFAULT_SEED_CUSTOMER_ID = 42;

/** The demo's customer: 42, entitled by one active subscription of its own. */
export const DEFAULT_SEED: Seed = {
  customers: [{ id: DEFAULT_SEED_CUSTOMER_ID, subscriptions: [{ id: 1, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] }] }],
};

/** The demo's household: customer 42 holds a subscription with a dependant, 43, who has a list of its own. */
export const DEMO_DEPENDANT_CUSTOMER_ID = 43;
export const DEMO_HOUSEHOLD_SEED: Seed = {
  customers: [
    {
      id: DEFAULT_SEED_CUSTOMER_ID,
      subscriptions: [{ id: 1, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [DEMO_DEPENDANT_CUSTOMER_ID] }],
    },
    {
      id: DEMO_DEPENDANT_CUSTOMER_ID,
      subscriptions: [
        { id: 1, customerId: DEFAULT_SEED_CUSTOMER_ID, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [DEMO_DEPENDANT_CUSTOMER_ID] },
      ],
    },
  ],
};

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'it does not match the seed format';
  const path = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the top level';
  return `${path}: ${issue.message}`;
}

/** Validates a seed and indexes it by customer id; `source` names it in the error. */
export function customersOf(seed: unknown, source = 'the seed'): Map<number, SeededSubscription[]> {
  const result = seedSchema.safeParse(seed);
  if (!result.success) {
    throw new PanicPairError(
      'config',
      `${source} is not a valid seed (${describeIssue(result.error)}); expected {"customers": [{"id": 42, "subscriptions": [...]}]}`,
    );
  }
  const customers = new Map<number, SeededSubscription[]>();
  for (const customer of result.data.customers) {
    customers.set(
      customer.id,
      customer.subscriptions.map((subscription) => ({ ...subscription, customerId: subscription.customerId ?? customer.id })),
    );
  }
  return customers;
}

/** Reads and validates a seed file; every error names the file. */
export async function loadSeed(file: string): Promise<Seed> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new PanicPairError('config', `seed file ${file} cannot be read (${code})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PanicPairError('config', `seed file ${file} is not valid JSON`);
  }
  customersOf(value, `seed file ${file}`);
  return value as Seed;
}
