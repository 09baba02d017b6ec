import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { LinkOutcome } from '../../src/pairing/types.js';
import { REAL_IO_TIMEOUT_MS } from '../support/loaded-machine.js';
import { afterThisTest, rig } from './engine-rig.js';

// A burst of buttons in a window: the next jobs write their `linking` records while the requests
// before them are out, so the API, not fsync, paces the burst; and what a crash could leave
// `linking` stays bounded (request slots plus as many again written ahead).

const CONCURRENCY = 2;

interface HeldApi {
  url: string;
  /** Link requests that reached the API and wait to be let through. */
  held(): number;
  /** Lets every held request through, and every later one at once. */
  release(): void;
}

/** The simulator behind a door that holds every link request (POST) until the test opens it. */
async function heldApi(target: string): Promise<HeldApi> {
  const waiting: Array<() => void> = [];
  let open = false;
  const server = createServer((incoming, answer) => {
    const pass = (): void => {
      const upstream = request(new URL(incoming.url ?? '/', target), { method: incoming.method, headers: incoming.headers }, (reply) => {
        answer.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(answer);
      });
      upstream.on('error', () => answer.destroy());
      incoming.pipe(upstream);
    };
    if (open || incoming.method !== 'POST') pass();
    else waiting.push(pass);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterThisTest(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => waiting.length,
    release() {
      open = true;
      for (const pass of waiting.splice(0)) pass();
    },
  };
}

describe('link staging', () => {
  it('writes linking records ahead of free request slots, never more than three times the concurrency', async () => {
    let api: HeldApi | undefined;
    // The held requests wait as long as the test needs: longer than any fsync of a loaded machine.
    const { engine, simulator, store } = await rig({ concurrency: CONCURRENCY, apiRetry: {}, apiTimeoutMs: 2 * REAL_IO_TIMEOUT_MS, apiUrl: async (url) => (api = await heldApi(url)).url });
    await engine.gate.check();

    const outcomes: LinkOutcome[] = [];
    const window = engine.openWindow(60, { signal: AbortSignal.timeout(60_000), onOutcome: (outcome) => outcomes.push(outcome) });
    const ids = Array.from({ length: 10 }, (_, i) => `STAGE${i}`);
    for (const deviceId of ids) engine.sighting({ deviceId, source: 'mqtt', at: performance.now() });

    const linking = (): number => store.all().filter((record) => record.state === 'linking').length;
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, linking())), 5);
    afterThisTest(() => clearInterval(sampler));
    // While the first two requests are held by the API, four more records are already durable,
    // and no third request is sent.
    await expect.poll(linking, { timeout: REAL_IO_TIMEOUT_MS, interval: 5 }).toBe(3 * CONCURRENCY);
    await expect.poll(() => api!.held(), { timeout: REAL_IO_TIMEOUT_MS }).toBe(CONCURRENCY);
    expect(simulator.stats().requests.link).toBe(0);

    api!.release();
    await expect.poll(() => outcomes.length, { timeout: REAL_IO_TIMEOUT_MS }).toBe(ids.length);
    clearInterval(sampler);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(most).toBeLessThanOrEqual(3 * CONCURRENCY);
    expect(simulator.stats().requests.link).toBe(ids.length);
    expect(simulator.stats().maxInFlight).toBeLessThanOrEqual(CONCURRENCY);
    await engine.drain(1_000);
    await window;
  });
});
