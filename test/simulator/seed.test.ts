import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PanicPairError } from '../../src/errors.js';
import { DEFAULT_SEED, loadSeed } from '../../src/simulator/index.js';
import { AUTH, call, simulator } from './sim-harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-seed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function seedFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function seedError(file: string): Promise<PanicPairError> {
  try {
    await loadSeed(file);
  } catch (error) {
    expect(error).toBeInstanceOf(PanicPairError);
    return error as PanicPairError;
  }
  throw new Error('expected loadSeed to fail');
}

describe('loadSeed', () => {
  it('loads the seed format and serves it', async () => {
    const file = seedFile(
      'good.json',
      JSON.stringify({
        customers: [
          { id: 7, subscriptions: [{ id: 1, subscriptionTypeId: 1, status: 'cancelled', dependantCustomerIds: [] }] },
          { id: 8, subscriptions: [{ id: 2, subscriptionTypeId: 1, status: 'active' }] },
        ],
      }),
    );
    const sim = await simulator({ seed: await loadSeed(file) });
    expect(sim.customerIds).toEqual([7, 8]);
    expect((await call(sim.url, '/panic-api/v2/customers/8/subscriptions', { headers: AUTH })).json).toEqual([
      { id: 2, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [], customerId: 8 },
    ]);
  });

  it.each([
    ['missing.json', undefined, /cannot be read \(ENOENT\)/],
    ['broken.json', '{"customers": [', /is not valid JSON/],
    ['no-customers.json', '{}', /customers/],
    ['list.json', '[]', /not a valid seed/],
    ['fractional.json', '{"customers":[{"id":4.2,"subscriptions":[]}]}', /customers\.0\.id/],
    ['no-status.json', '{"customers":[{"id":4,"subscriptions":[{"id":1,"subscriptionTypeId":1}]}]}', /customers\.0\.subscriptions\.0\.status/],
    ['typo.json', '{"customers":[{"id":4,"subscription":[]}]}', /not a valid seed/],
    ['twice.json', '{"customers":[{"id":4,"subscriptions":[]},{"id":4,"subscriptions":[]}]}', /two customers share one id/],
  ])('%s: a config error naming the file', async (name, text, message) => {
    const file = text === undefined ? path.join(dir, name) : seedFile(name, text);
    const error = await seedError(file);
    expect(error.kind).toBe('config');
    expect(error.message).toContain(file);
    expect(error.message).toMatch(message);
  });

  it('an invalid seed passed in process is refused too', async () => {
    await expect(simulator({ seed: { customers: [{ id: 1, subscriptions: [{ id: 'x' }] }] } as never })).rejects.toThrow(/not a valid seed/);
  });

  it('the default seed is customer 42 with one active subscription', async () => {
    expect(DEFAULT_SEED).toEqual({
      customers: [{ id: 42, subscriptions: [{ id: 1, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] }] }],
    });
    expect((await simulator()).customerIds).toEqual([42]);
  });
});
