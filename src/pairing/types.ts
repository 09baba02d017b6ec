import type { DeviceRecord } from '../store/record.js';
import type { ErrorKind } from '../errors.js';

/** What one wait looks like to the installer: which API, why, and how long until the next try. */
export interface OutageWait {
  /** The API's base address as configured (it never holds the token). */
  api: string;
  /** The last failure, in the client's words. */
  reason: string;
  inMs: number;
}

// The steps an installer sees while `pair` runs, in order.
export type PairStep = 'waiting' | 'checking' | 'linking' | 'retrying' | 'linked';

export interface PairProgress {
  deviceId: string;
  step: PairStep;
  /** The hub's customer, whose subscription is checked. */
  customerId?: number;
  /** Where the button was heard, once it was. */
  source?: string;
  rssi?: number;
  /** Step `retrying`: the link failed for a passing reason and is tried again after this wait. */
  wait?: OutageWait;
}

/** How a link job ended. `kind` is set when it did not end linked. */
export type LinkOutcome =
  /** `counterAccepted`: an already linked button paired again with its key, whose current counter
   * is now the one counted from (after a battery change); nothing was posted. */
  | { ok: true; record: DeviceRecord; alreadyLinked: boolean; counterAccepted?: number }
  | { ok: false; deviceId: string; kind: ErrorKind; message: string; record?: DeviceRecord };

export interface WindowReport {
  openedAt: string;
  closedAt: string;
  outcomes: LinkOutcome[];
}

/** One button heard recently, as the installer's page lists it: with how long ago, on the monotonic clock. */
export interface HeardEntry extends ScanEntry {
  ageMs: number;
}

/** One button heard recently, as `scan` lists it. */
export interface ScanEntry {
  deviceId: string;
  source: string;
  /** Smoothed over recent reports, dBm. */
  rssi?: number;
  lastSeen: string;
  deviceTypeId?: number;
  /** The store's state for it, when it has one. */
  state?: DeviceRecord['state'];
}
