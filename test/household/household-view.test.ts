import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { HOUSEHOLD_SEED } from '../support/household-seed.js';

// `panic-pair household`, `status` and `status --json`: the household as
// the hub learns it, through the real binary, against a real daemon, mosquitto and the simulator.

interface Entry {
  customerId: number;
  entitled: boolean | null;
  role: string;
}

let hub: DaemonHarness | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

describe('the household', () => {
  it('of a holder: itself and the dependants of its active subscription, each entitled by its own list', async () => {
    hub = await startHarness({ customerId: 70, seed: HOUSEHOLD_SEED });
    const result = await hub.cli(['household', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout) as Entry[]).toEqual([
      { customerId: 70, entitled: true, role: 'hub' },
      { customerId: 77, entitled: true, role: 'dependant' },
      { customerId: 78, entitled: false, role: 'dependant' },
    ]);

    const status = await hub.cli(['status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ customerId: 70, entitled: true, household: [70, 77, 78] });
    expect((await hub.cli(['status'])).stdout).toMatch(/household\s+customer 70 and 77, 78/);

    const table = await hub.cli(['household']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/78\s+dependant\s+NO: no active subscription/);
    expect(table.stdout).toContain('--customer');
  });

  it('of a dependant: itself, the holder and the other dependants', async () => {
    hub = await startHarness({ customerId: 77, seed: HOUSEHOLD_SEED });
    expect(await hub.cliJson<Entry[]>(['household'])).toEqual([
      { customerId: 77, entitled: true, role: 'hub' },
      { customerId: 70, entitled: true, role: 'holder' },
      { customerId: 78, entitled: false, role: 'dependant' },
    ]);
    expect((await hub.status()).household).toEqual([77, 70, 78]);
  });

  it('of a customer whose subscription with dependants is cancelled: itself alone, and its dependants cannot be linked', async () => {
    hub = await startHarness({ customerId: 80, seed: HOUSEHOLD_SEED });
    expect(await hub.cliJson<Entry[]>(['household'])).toEqual([{ customerId: 80, entitled: true, role: 'hub' }]);
    expect((await hub.status()).household).toEqual([80]);

    // 81 is entitled by its own list, but the subscription naming it with 80 is cancelled.
    await hub.announceSeen('CXL-81');
    const pair = await hub.cli(['pair', 'CXL-81', '--customer', '81']);
    expect(pair.code, pair.stdout).toBe(3);
    expect(pair.stderr).toContain('customer 81 is not in the household of customer 80');
    expect(hub.simulator.stats().requests.link).toBe(0);
  });

  it('fails closed: an unreadable reply, a 404 or an empty list leaves the hub customer alone, not entitled', async () => {
    // TTL 0: every question goes to the API, so the unreadable reply below is what `household` sees.
    hub = await startHarness({ customerId: 70, seed: HOUSEHOLD_SEED, env: { PANIC_PAIR_ENTITLEMENT_TTL: '0' } });
    hub.simulator.setFaults({ queue: [{ type: 'not-json', route: 'subscriptions', count: 1000 }] });
    expect(await hub.cliJson<Entry[]>(['household'])).toEqual([{ customerId: 70, entitled: null, role: 'hub' }]);
    expect((await hub.status()).household).toEqual([70]);
    await hub.announceSeen('UNREAD-77');
    const pair = await hub.cli(['pair', 'UNREAD-77', '--customer', '77']);
    expect(pair.code).not.toBe(0);
    expect(hub.simulator.stats().requests.link).toBe(0);
    await hub.close();

    hub = await startHarness({ customerId: 99, seed: HOUSEHOLD_SEED });
    expect(await hub.cliJson<Entry[]>(['household'])).toEqual([{ customerId: 99, entitled: false, role: 'hub' }]);
    await hub.close();

    hub = await startHarness({ customerId: 60, seed: { customers: [{ id: 60, subscriptions: [] }] } });
    expect(await hub.cliJson<Entry[]>(['household'])).toEqual([{ customerId: 60, entitled: false, role: 'hub' }]);
  });
});
