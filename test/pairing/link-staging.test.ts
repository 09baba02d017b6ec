import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { Secret } from '../../src/config/secret.js';
import { createCounters } from '../../src/daemon/counters.js';
import { silentLogger } from '../../src/log/logger.js';
import { PairingEngine } from '../../src/pairing/engine.js';
import type { LinkOutcome } from '../../src/pairing/types.js';
import { startSimulator } from '../../src/simulator/index.js';
import { PairingStore } from '../../src/store/index.js';

// A burst of buttons in a window: the next jobs write their `linking` records while the requests
// before them are out, so the API, not fsync, paces the burst; and what a crash could leave
// `linking` stays bounded (request slots plus as many again written ahead).

const TOKEN = 'staging-test-token';
const CONCURRENCY = 2;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('link staging', () => {
  it('writes linking records ahead of free request slots, never more than three times the concurrency', async () => {
    const simulator = await startSimulator({ port: 0, token: TOKEN });
    cleanups.push(() => simulator.close());
    const dir = mkdtempSync(path.join(tmpdir(), 'staging-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = await PairingStore.open(dir);
    cleanups.push(() => store.close());
    const api = createApiClient({ baseUrl: simulator.url, token: () => new Secret(TOKEN), timeoutMs: 5000, maxInFlight: CONCURRENCY });
    cleanups.push(() => api.close());
    const engine = new PairingEngine({
      customerId: 42,
      api,
      store,
      hasToken: true,
      apiConcurrency: CONCURRENCY,
      entitlementTtlMs: 300_000,
      minRssi: -70,
      autoPair: false,
      counters: createCounters(),
      logger: silentLogger(),
    });
    await engine.gate.check();
    simulator.setFaults({ latencyMs: 300 });

    const outcomes: LinkOutcome[] = [];
    const window = engine.openWindow(30, { signal: AbortSignal.timeout(30_000), onOutcome: (outcome) => outcomes.push(outcome) });
    const ids = Array.from({ length: 10 }, (_, i) => `STAGE${i}`);
    for (const deviceId of ids) engine.sighting({ deviceId, source: 'mqtt', at: Date.now() });

    const linking = (): number => store.all().filter((record) => record.state === 'linking').length;
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, linking())), 5);
    cleanups.push(() => clearInterval(sampler));
    // While the first two requests are held by the API, four more records are already durable.
    await expect.poll(linking, { timeout: 5_000, interval: 5 }).toBe(3 * CONCURRENCY);
    expect(simulator.stats().requests.link).toBe(CONCURRENCY);

    await expect.poll(() => outcomes.length, { timeout: 10_000 }).toBe(ids.length);
    clearInterval(sampler);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(most).toBeLessThanOrEqual(3 * CONCURRENCY);
    expect(simulator.stats().requests.link).toBe(ids.length);
    expect(simulator.stats().maxInFlight).toBeLessThanOrEqual(CONCURRENCY);
    await engine.drain(1_000);
    await window;
  });
});
