import { afterEach } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions, type ApiRequestEvent } from '../../src/api/index.js';
import { Secret } from '../../src/config/secret.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';

// A real simulator on 127.0.0.1 and a real client, with retry waits recorded instead of slept.

export const TOKEN = 'tok-5f3c9a1e-never-print-me';

export interface Rig {
  simulator: Simulator;
  client: ApiClient;
  /** Every delay the client asked to wait between attempts, in order. */
  delays: number[];
  events: ApiRequestEvent[];
}

const open: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

export async function rig(client: Partial<ApiClientOptions> = {}, simulator: Partial<SimulatorOptions> = {}): Promise<Rig> {
  const sim = await startSimulator({ token: TOKEN, ...simulator });
  const delays: number[] = [];
  const events: ApiRequestEvent[] = [];
  const api = createApiClient({
    baseUrl: sim.url,
    token: () => new Secret(TOKEN),
    timeoutMs: 5_000,
    maxInFlight: 4,
    retry: { baseDelayMs: 1, maxDelayMs: 4 },
    sleep: async (ms) => void delays.push(ms),
    onRequest: (event) => events.push(event),
    ...client,
  });
  open.push(async () => {
    api.close();
    await sim.close();
  });
  return { simulator: sim, client: api, delays, events };
}

/** The rejection of a promise that must fail. */
export async function failure(promise: Promise<unknown>): Promise<Error & { kind: string; status?: number }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { kind: string; status?: number };
  }
  throw new Error('expected the call to fail');
}
