import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { HOUSEHOLD_SEED } from '../support/household-seed.js';
import { waitFor } from '../support/wait.js';

// `pair <id> --timeout S` and `pair --window S` go on trying a link that
// fails for a passing reason until their time is up, show each wait live, and at the end say that
// the hub keeps trying (exit 8). The API here is the simulator closed and started again on the
// same port: connections refused while it is away.

const WAIT = /the API at http:\/\/127\.0\.0\.1:\d+ is unreachable \(connection refused\); trying again in \d+ s/;

describe('pair through an API outage', () => {
  let hub: DaemonHarness;
  beforeAll(async () => {
    hub = await startHarness({ logLevel: 'info' });
  });
  afterAll(() => hub?.close());

  it('`pair <id> --timeout 45` with the API down for 6 s, then back: exit 0, one POST, each wait shown', { timeout: 90_000 }, async () => {
    await hub.announceSeen('OUT-1');
    const bringBack = await hub.takeApiDown();
    const downAt = performance.now();
    const pair = hub.cli(['pair', 'OUT-1', '--timeout', '45']);
    // Down for at least 6 s and at least one wait shown; then the API comes back.
    await waitFor(() => WAIT.test(pair.stdout()) && performance.now() - downAt >= 6_000, { timeoutMs: 30_000, intervalMs: 100, what: 'a wait shown after 6 s down' });
    const api = await bringBack();
    const result = await pair;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(WAIT);
    expect(result.stdout).toContain('Linked OUT-1');
    expect(result.stdout + result.stderr).not.toContain(hub.token);
    expect(api.stats().postsByDevice['OUT-1']).toBe(1);
    expect(hub.storeRecords().find((record) => record.deviceId === 'OUT-1')?.state).toBe('linked');
  });

  it('still down when the time is up: exit 8, the hub keeps trying, and --json carries the same facts', { timeout: 90_000 }, async () => {
    await hub.announceSeen('OUT-2');
    const bringBack = await hub.takeApiDown();
    // Time enough for the first try's own retries (about 2 s) to fail and a wait to follow.
    const plain = await hub.cli(['pair', 'OUT-2', '--timeout', '8']);
    expect(plain.code, plain.stdout + plain.stderr).toBe(8);
    expect(plain.stdout).toMatch(WAIT);
    expect(plain.stderr).toMatch(/OUT-2 was not linked within 8 s: the API at http:\/\/127\.0\.0\.1:\d+ is unreachable \(connection refused\)/);
    expect(plain.stderr).toContain('the hub keeps trying in the background; watch it with `panic-pair devices`');

    const json = await hub.cli(['pair', 'OUT-2', '--timeout', '8', '--json']);
    expect(json.code).toBe(8);
    const document = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(document).toMatchObject({ ok: false, deviceId: 'OUT-2', kind: 'timeout', exitCode: 8, keepsTrying: true, watch: 'panic-pair devices' });
    expect(document.waits).toEqual(expect.arrayContaining([expect.objectContaining({ api: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), reason: expect.stringContaining('connection refused'), inMs: expect.any(Number) })]));

    // Back: the background retry links it, once.
    const api = await bringBack();
    await waitFor(() => hub.storeRecords().find((record) => record.deviceId === 'OUT-2')?.state === 'linked', { timeoutMs: 75_000, intervalMs: 250, what: 'the background retry to link OUT-2' });
    expect(api.stats().postsByDevice['OUT-2']).toBe(1);
  });

  it('`pair --window 20`: a button pressed while the API is down is linked once it is back, inside the window', { timeout: 90_000 }, async () => {
    const bringBack = await hub.takeApiDown();
    const window = hub.cli(['pair', '--window', '20']);
    await waitFor(() => window.stdout().includes('Pairing window open'), { what: 'the window to open' });
    await hub.announce('OUT-3');
    await waitFor(() => /OUT-3: the API at .* is unreachable \(connection refused\); trying again in \d+ s/.test(window.stdout()), { timeoutMs: 20_000, what: 'the wait shown in the window' });
    const api = await bringBack();
    await waitFor(() => window.stdout().includes('Linked OUT-3'), { timeoutMs: 20_000, what: 'OUT-3 linked inside the window' });
    const result = await window;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(api.stats().postsByDevice['OUT-3']).toBe(1);
    expect(postsFor(hub, 'OUT-3')).toBe(0); // the first simulator never saw it
  });

  it('`pair --window 5` closing with the API still down: exit 8, the hub keeps trying', { timeout: 60_000 }, async () => {
    const bringBack = await hub.takeApiDown();
    const window = hub.cli(['pair', '--window', '5']);
    await waitFor(() => window.stdout().includes('Pairing window open'), { what: 'the window to open' });
    await hub.announce('OUT-4');
    const result = await window;
    expect(result.code, result.stdout + result.stderr).toBe(8);
    expect(result.stderr).toContain('OUT-4 not linked while the window was open');
    expect(result.stderr).toContain('the hub keeps trying in the background; watch it with `panic-pair devices`');
    await bringBack();
  });
});

describe('pair --customer through an API outage', () => {
  let hub: DaemonHarness;
  beforeAll(async () => {
    hub = await startHarness({ logLevel: 'info', customerId: 70, seed: HOUSEHOLD_SEED });
  });
  afterAll(() => hub?.close());

  it("a dependant's button: the member check waits out the outage with the link, then links to 77 once", { timeout: 90_000 }, async () => {
    await hub.announceSeen('OUT-77');
    const bringBack = await hub.takeApiDown();
    const pair = hub.cli(['pair', 'OUT-77', '--customer', '77', '--timeout', '45']);
    await waitFor(() => WAIT.test(pair.stdout()), { timeoutMs: 30_000, intervalMs: 100, what: 'a wait shown' });
    const back = await bringBack();
    const result = await pair;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Linked OUT-77 to customer 77');
    expect(back.stats().customersByDevice['OUT-77']).toEqual([77]);
  });
});
