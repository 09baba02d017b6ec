import type { Counters } from './counters.js';
import type { TokenState } from '../pairing/types.js';

// What `status --json` prints. CONTRACT.md section 2 fixes customerId, entitled, mqtt, ble and
// counters; the rest is for the installer.
export interface StatusReport {
  version: string;
  pid: number;
  startedAt: string;
  /** Seconds since start on the monotonic clock: right even when the wall clock jumped since. */
  uptimeSeconds?: number;
  /** false: degraded, and `problems` says why (exit 1). */
  healthy: boolean;
  problems: string[];
  customerId: number;
  entitled: boolean | null;
  /** The customers this hub may link buttons to (CONTRACT.md section 10), the hub's own first. */
  household: number[];
  entitlementCheckedAt?: string;
  token: TokenState;
  api: { state: 'unknown' | 'ok' | 'failing'; lastError?: string };
  mqtt: 'off' | 'connecting' | 'connected' | 'disconnected';
  ble: 'off' | 'starting' | 'scanning' | 'unavailable' | 'unauthorized' | 'powered-off';
  bleReason?: string;
  /** Writes since start, with their fsyncs and bytes: what the store costs the SD card. */
  store: { ok: boolean; path: string; error?: string; writes?: number; fsyncs?: number; bytesWritten?: number };
  devices: { total: number; linked: number; linking: number; rejected: number; failed: number };
  autoPair: boolean;
  /** ISO-8601 end of the latest open pairing window, when one is open. */
  windowOpenUntil?: string;
  counters: Counters;
}
