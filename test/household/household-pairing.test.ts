import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceRecord } from '../../src/store/record.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { HOUSEHOLD_SEED } from '../support/household-seed.js';
import { observe } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// `pair --customer N` on a hub whose customer 70 holds a subscription
// with dependants 77 and 78 (78 not entitled by its own list), through the real binary, against a
// real daemon, mosquitto and the simulator.

function customersPosted(hub: DaemonHarness, deviceId: string): number[] {
  return hub.simulator.stats().customersByDevice[deviceId] ?? [];
}

async function record(hub: DaemonHarness, deviceId: string): Promise<DeviceRecord | undefined> {
  return (await hub.devices()).find((device) => device.deviceId === deviceId);
}

describe('pair --customer on the hub of customer 70', () => {
  let hub: DaemonHarness;
  beforeAll(async () => {
    hub = await startHarness({ customerId: 70, seed: HOUSEHOLD_SEED });
  });
  afterAll(() => hub?.close());

  it('links BTN to dependant 77, says whose button it is, and the retained MQTT state carries 77', async () => {
    const watcher = await observe(hub.broker.url, `${hub.prefix}/devices/#`);
    try {
      await hub.announceSeen('BTN');
      const result = await hub.cli(['pair', 'BTN', '--customer', '77']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('Checking the subscription of customer 77');
      expect(result.stdout).toContain('Linked BTN to customer 77');
      expect(await record(hub, 'BTN')).toMatchObject({ state: 'linked', customerId: 77 });
      expect(customersPosted(hub, 'BTN')).toEqual([77]);
      const linked = await waitFor(
        () => watcher.payloads(`${hub.prefix}/devices/BTN`).map((payload) => JSON.parse(payload) as { state: string; customerId: number }).find((p) => p.state === 'linked'),
        { what: 'the retained linked state of BTN' },
      );
      expect(linked.customerId).toBe(77);
    } finally {
      await watcher.close();
    }
    const table = await hub.cli(['devices']);
    expect(table.stdout).toMatch(/BTN\s+linked\s+77\s/);
  });

  it('links to the hub customer itself with --customer 70 and without --customer', async () => {
    await hub.announceSeen('OWN-A');
    const explicit = await hub.cliJson<{ ok: boolean; customerId: number }>(['pair', 'OWN-A', '--customer', '70']);
    expect(explicit).toMatchObject({ ok: true, customerId: 70 });
    await hub.announceSeen('OWN-B');
    expect((await hub.cli(['pair', 'OWN-B'])).code).toBe(0);
    expect([customersPosted(hub, 'OWN-A'), customersPosted(hub, 'OWN-B')]).toEqual([[70], [70]]);
  });

  it('exits 3 naming a customer outside the household, and posts nothing', async () => {
    await hub.announceSeen('OUT-79');
    const result = await hub.cli(['pair', 'OUT-79', '--customer', '79']);
    expect(result.code, result.stdout).toBe(3);
    expect(result.stderr).toContain('customer 79 is not in the household of customer 70');
    expect(postsFor(hub, 'OUT-79')).toBe(0);
    expect(await record(hub, 'OUT-79')).toBeUndefined();
  });

  it('exits 3 naming a member whose own subscription is suspended, and posts nothing', async () => {
    await hub.announceSeen('SUS-78');
    const result = await hub.cli(['pair', 'SUS-78', '--customer', '78', '--json']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, kind: 'not-entitled', exitCode: 3 });
    expect(result.stderr).toContain('customer 78 holds no active subscription');
    expect(postsFor(hub, 'SUS-78')).toBe(0);
  });

  it('exits 2 for a customer that is not an integer, before asking the daemon', async () => {
    for (const bad of ['abc', '7.5', '', '77x']) {
      const result = await hub.cli(['pair', 'NONINT', '--customer', bad]);
      expect(result.code, bad).toBe(2);
      expect(result.stderr).toContain('--customer');
    }
    expect(postsFor(hub, 'NONINT')).toBe(0);
  });

  it('keeps one button, one link: a button linked to 77 is never posted for anyone else', async () => {
    for (const args of [['--customer', '70'], [], ['--customer', '78']]) {
      const result = await hub.cli(['pair', 'BTN', ...args]);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain('BTN belongs to customer 77');
    }
    // The page words the kind: the button is another customer's, not an unexpected error.
    const json = await hub.cli(['pair', 'BTN', '--customer', '70', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, kind: 'other-customer', exitCode: 1 });
    const again = await hub.cli(['pair', 'BTN', '--customer', '77']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already linked to customer 77');
    expect(customersPosted(hub, 'BTN')).toEqual([77]);
  });

  it('opens a window for dependant 77: what it links is 77s; a window for 78 or 79 is refused with exit 3', async () => {
    const window = hub.cli(['pair', '--window', '8', '--customer', '77', '--json']);
    await waitFor(async () => (await hub.status()).windowOpenUntil, { what: 'the pairing window to open' });
    await hub.announce('WIN-77');
    const result = await window;
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { linked: DeviceRecord[] };
    expect(report.linked.map((linked) => [linked.deviceId, linked.customerId])).toEqual([['WIN-77', 77]]);
    expect(customersPosted(hub, 'WIN-77')).toEqual([77]);

    for (const customer of ['78', '79']) {
      const refused = await hub.cli(['pair', '--window', '5', '--customer', customer]);
      expect(refused.code, customer).toBe(3);
      expect(refused.stderr).toContain(`customer ${customer}`);
    }
  });

  it('announces a window only once the daemon has opened it: one refused for another customer never says "press"', async () => {
    const open = hub.cli(['pair', '--window', '15', '--customer', '77']);
    await waitFor(() => open.stdout().includes('Pairing window open for 15 s — press each button to link it to customer 77'), {
      what: 'the window for 77 to be announced',
    });
    for (const args of [['--customer', '70'], []]) {
      const refused = await hub.cli(['pair', '--window', '5', ...args]);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toContain('a pairing window for customer 77 is open');
      expect(refused.stdout).not.toContain('Pairing window open');
      expect(refused.stdout).not.toContain('press');
    }
    expect((await open).code).toBe(0);
  });

  it('lets no announcement choose the customer: a customerId in it changes nothing', async () => {
    // Heard, but nobody asked: nothing is linked, whatever the message says.
    await hub.announceSeen('ANN-A', { customerId: 77 });
    expect(postsFor(hub, 'ANN-A')).toBe(0);
    expect(await record(hub, 'ANN-A')).toBeUndefined();
    // Asked for by the installer without --customer: the hub's customer, not the message's.
    await hub.announceSeen('ANN-B', { customerId: 77 });
    expect((await hub.cli(['pair', 'ANN-B'])).code).toBe(0);
    // Inside a window for 77, a message naming 70 (or 79) still links to 77.
    const window = hub.cli(['pair', '--window', '8', '--customer', '77', '--json']);
    await waitFor(async () => (await hub.status()).windowOpenUntil, { what: 'the pairing window to open' });
    await hub.announce('ANN-C', { customerId: 79 });
    expect((await window).code).toBe(0);
    expect([customersPosted(hub, 'ANN-B'), customersPosted(hub, 'ANN-C')]).toEqual([[70], [77]]);
  });
});

describe('crash recovery', () => {
  it('finishes a linking record cut by SIGKILL for its own customer, 77', async () => {
    const hub = await startHarness({ customerId: 70, seed: HOUSEHOLD_SEED });
    try {
      hub.simulator.setFaults({ latencyMs: 1500 });
      await hub.announceSeen('CRASH-77');
      const pair = hub.cli(['pair', 'CRASH-77', '--customer', '77']);
      const linking = await waitFor(() => hub.storeRecords().find((r) => r.deviceId === 'CRASH-77' && r.state === 'linking'), {
        what: 'the linking record on disk',
      });
      expect(linking.customerId).toBe(77);
      hub.kill('SIGKILL');
      await hub.exited();
      expect((await pair).code).not.toBe(0);

      hub.simulator.setFaults({});
      await hub.restart();
      const linked = await waitFor(
        async () => {
          const now = await record(hub, 'CRASH-77');
          return now?.state === 'linked' ? now : undefined;
        },
        { timeoutMs: 15_000, what: 'CRASH-77 to be linked after the restart' },
      );
      expect(linked.customerId).toBe(77);
      expect(hub.storeRecords().find((r) => r.deviceId === 'CRASH-77')?.customerId).toBe(77);
      const posted = customersPosted(hub, 'CRASH-77');
      expect(posted.length).toBeGreaterThanOrEqual(1);
      expect(posted.length).toBeLessThanOrEqual(2);
      expect(new Set(posted)).toEqual(new Set([77]));
    } finally {
      await hub.close();
    }
  });
});
