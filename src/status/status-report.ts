import type { Counters } from './counters.js';
import type { PageAddress } from './page-address.js';
import type { TokenState } from '../api/types.js';
import type { ButtonCounts } from '../supervision/types.js';
import type { UpdateOutcome } from '../update/words.js';

// What `status --json` prints. customerId, entitled, mqtt, ble and counters are always there, for
// scripts (docs/reference/cli.md); the rest is for the installer.
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
  /** The customers this hub may link buttons to, the hub's own first. */
  household: number[];
  entitlementCheckedAt?: string;
  token: TokenState;
  api: { state: 'unknown' | 'ok' | 'failing'; lastError?: string };
  mqtt: 'off' | 'connecting' | 'connected' | 'disconnected';
  /** Why MQTT is down or degraded: the latest connection failure, or what the broker refuses. */
  mqttReason?: string;
  /** The protocol spoken with the broker, once connected: '5' or '3.1.1'. */
  mqttProtocol?: '5' | '3.1.1';
  /** Subscriptions and (MQTT 5) publishes the broker refuses, and how many publishes it refused. */
  mqttRefusals?: RefusalReport;
  ble: 'off' | 'starting' | 'scanning' | 'unavailable' | 'unauthorized' | 'powered-off' | 'blocked';
  bleReason?: string;
  /** The adapter in use (its address once read), or null while none is. */
  bleAdapter: { name: string; address: string | null } | null;
  /** Real recoveries of the radio: adapters opened again after a fault, scans started again after a stop or reset. */
  bleRestarts: number;
  /** Seconds since the latest advertisement heard, on the monotonic clock; null before the first. */
  bleLastHeardSeconds: number | null;
  /** Writes since start, with their fsyncs and bytes: what the store costs the SD card. */
  store: { ok: boolean; path: string; error?: string; writes?: number; fsyncs?: number; bytesWritten?: number };
  devices: { total: number; linked: number; linking: number; rejected: number; failed: number };
  /** The linked buttons by supervision, and those with a low battery. */
  buttons: ButtonCounts;
  /** PANIC_PAIR_SUPERVISION; older daemons send none. */
  supervision?: 'on' | 'off';
  autoPair: boolean;
  /** Home Assistant discovery: the prefix its configs are published under, when it is on. */
  homeAssistant?: { discoveryPrefix: string };
  /**
   * Where the latest package update stands (update.json in the state directory), null when none is
   * recorded. Older daemons send none.
   */
  update?: UpdateOutcome | null;
  /** Where a phone opens the installer's page; null when the page is off. Older daemons send none. */
  page?: PageAddress | null;
  /** ISO-8601 end of the latest open pairing window, when one is open. */
  windowOpenUntil?: string;
  counters: Counters;
}

// What the broker refuses, as `mqttRefusals` shows it (src/mqtt/refusals.ts keeps the list).
export interface RefusedSubscription {
  filter: string;
  reason: string;
}

export interface RefusedPublish {
  topic: string;
  reason: string;
}

export interface RefusalReport {
  subscriptions: RefusedSubscription[];
  publishes: RefusedPublish[];
  /** Publishes the broker refused since start, retries included. */
  publishesRefused: number;
}
