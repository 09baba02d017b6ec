import type { StatusReport } from '../status/status-report.js';
import type { DeviceRow } from '../supervision/types.js';
import type { LinkOutcome, PairProgress, ScanEntry, WindowReport } from '../pairing/types.js';
import type { HouseholdEntry } from '../pairing/customer-gates.js';

// What the daemon answers on the control socket. The server knows the wire, the daemon knows
// the answers: each request type maps to one of these. `signal` aborts when the client goes away
// (an installer pressing Ctrl-C) or the daemon stops.
export interface ControlHandlers {
  status(): StatusReport;
  devices(): DeviceRow[];
  scan(seconds: number, signal: AbortSignal): Promise<ScanEntry[]>;
  forget(deviceId: string): Promise<{ removed: boolean }>;
  /** An outcome with ok:false reaches the client as an error line of its kind. */
  pair(
    deviceId: string,
    options: { timeoutMs: number; signal: AbortSignal; onProgress(progress: PairProgress): void; customerId?: number; key?: Buffer },
  ): Promise<LinkOutcome>;
  /** Every outcome, linked or not, reaches the client as it happens; the report closes the call. */
  window(
    seconds: number,
    options: {
      signal: AbortSignal;
      onProgress(progress: PairProgress): void;
      onOutcome(outcome: LinkOutcome): void;
      /** The window is open (not refused): called once, before any outcome. */
      onOpen?(): void;
      customerId?: number;
    },
  ): Promise<WindowReport>;
  /** The customers this hub may link to (its household), each entitled now or not. */
  household(): Promise<HouseholdEntry[]>;
}
