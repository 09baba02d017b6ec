import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { createApiClient, type ApiClient, type RetryPolicy } from '../../src/api/index.js';
import { Secret } from '../../src/config/secret.js';
import { createCounters } from '../../src/status/counters.js';
import { silentLogger } from '../../src/log/logger.js';
import { PairingEngine } from '../../src/pairing/engine.js';
import type { EntitlementState } from '../../src/api/types.js';
import { startSimulator, type Seed, type Simulator } from '../../src/simulator/index.js';
import { PairingStore } from '../../src/store/index.js';
import { faultyFs, type Fault } from '../store/fixtures/faulty-fs.js';

// The engine against the project's own simulator over real HTTP and a real store on disk, torn
// down after each test.

export const TOKEN = 'engine-test-token';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs after the current test, last registered first. */
export function afterThisTest(cleanup: () => Promise<void> | void): void {
  cleanups.push(cleanup);
}

/** A temporary directory removed after the test. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  afterThisTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Rig {
  engine: PairingEngine;
  simulator: Simulator;
  store: PairingStore;
  api: ApiClient;
  dir: string;
  entitlements: EntitlementState[];
}

export interface RigOptions {
  seed?: Seed;
  autoPair?: boolean;
  ttlMs?: number;
  /** A disk fault the store's writes go through. */
  fault?: { current: Fault | null };
  /** A state dir prepared by the test. */
  dir?: string;
  concurrency?: number;
  apiTimeoutMs?: number;
  /** The API client's own retries: one, with tiny delays, unless said otherwise. */
  apiRetry?: Partial<RetryPolicy>;
  backgroundRetry?: RetryPolicy;
  /** Where the API client sends its requests, given the simulator's address: something in front of it. */
  apiUrl?: (simulatorUrl: string) => Promise<string>;
}

export async function rig(options: RigOptions = {}): Promise<Rig> {
  const concurrency = options.concurrency ?? 4;
  const simulator = await startSimulator({ port: 0, token: TOKEN, ...(options.seed ? { seed: options.seed } : {}) });
  afterThisTest(() => simulator.close());
  const dir = options.dir ?? tempDir('engine-');
  const store = await PairingStore.open(dir, options.fault ? { fs: faultyFs(options.fault) } : {});
  afterThisTest(() => store.close().catch(() => undefined));
  const api = createApiClient({
    baseUrl: options.apiUrl === undefined ? simulator.url : await options.apiUrl(simulator.url),
    token: () => new Secret(TOKEN),
    timeoutMs: options.apiTimeoutMs ?? 5000,
    maxInFlight: concurrency,
    retry: options.apiRetry ?? { limit: 1, baseDelayMs: 1, maxDelayMs: 5 },
  });
  afterThisTest(() => api.close());
  const engine = new PairingEngine({
    customerId: 42,
    api,
    store,
    hasToken: true,
    apiConcurrency: concurrency,
    entitlementTtlMs: options.ttlMs ?? 300_000,
    minRssi: -70,
    autoPair: options.autoPair ?? false,
    counters: createCounters(),
    logger: silentLogger(),
    ...(options.backgroundRetry ? { backgroundRetry: options.backgroundRetry } : {}),
  });
  const entitlements: EntitlementState[] = [];
  engine.onEntitlement((state) => entitlements.push(state));
  return { engine, simulator, store, api, dir, entitlements };
}
