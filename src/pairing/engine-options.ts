import type { PanicApi } from '../api/types.js';
import type { RetryPolicy } from '../api/retry-delay.js';
import type { Counters } from '../status/counters.js';
import type { Logger } from '../log/logger.js';
import type { DeviceStore } from './link-job.js';

// What the daemon builds the pairing engine from (src/daemon/daemon.ts); tests shorten the times.
export interface EngineOptions {
  customerId: number;
  defaultDeviceTypeId?: number;
  api: PanicApi;
  store: DeviceStore;
  hasToken: boolean;
  apiConcurrency: number;
  entitlementTtlMs: number;
  minRssi: number;
  autoPair: boolean;
  counters: Counters;
  logger: Logger;
  /** Monotonic ms (src/clock.ts): every duration. */
  clock?: () => number;
  /** Epoch ms: only stamps records and reports. */
  wallClock?: () => number;
  /** How failed links are tried again in the background; tests shorten it. */
  backgroundRetry?: RetryPolicy;
  /** A sighting this recent lets `pair <id>` start at once. */
  recentSightingMs?: number;
  /** The API's base address, for the installer's messages during an outage (never the token). */
  apiAddress?: string;
}
