import { describe, expect, it } from 'vitest';
import type { LinkOutcome } from '../../src/pairing/types.js';
import { afterThisTest, rig } from './engine-rig.js';

// A burst of buttons in a window: the next jobs write their `linking` records while the requests
// before them are out, so the API, not fsync, paces the burst; and what a crash could leave
// `linking` stays bounded (request slots plus as many again written ahead).

const CONCURRENCY = 2;

describe('link staging', () => {
  it('writes linking records ahead of free request slots, never more than three times the concurrency', async () => {
    const { engine, simulator, store } = await rig({ concurrency: CONCURRENCY, apiRetry: {} });
    await engine.gate.check();
    simulator.setFaults({ latencyMs: 300 });

    const outcomes: LinkOutcome[] = [];
    const window = engine.openWindow(30, { signal: AbortSignal.timeout(30_000), onOutcome: (outcome) => outcomes.push(outcome) });
    const ids = Array.from({ length: 10 }, (_, i) => `STAGE${i}`);
    for (const deviceId of ids) engine.sighting({ deviceId, source: 'mqtt', at: performance.now() });

    const linking = (): number => store.all().filter((record) => record.state === 'linking').length;
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, linking())), 5);
    afterThisTest(() => clearInterval(sampler));
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
