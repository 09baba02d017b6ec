import type { CheckReport } from '../check/result.js';
import type { ControlHandlers } from '../control/handlers.js';
import type { HeardEntry } from '../pairing/types.js';

// What the daemon gives the installer's page: the control socket's own handlers (the page asks
// the engine exactly as `panic-pair` does), plus what only a live page needs.

export type { HouseholdEntry as HouseholdMember } from '../pairing/customer-gates.js';

export interface PageHandlers extends ControlHandlers {
  /** `panic-pair check`, run by the daemon with its own configuration. */
  check(): Promise<CheckReport>;
  /** Buttons heard within `withinMs`, at once. */
  heard(withinMs: number): HeardEntry[];
  /** Called whenever something the page shows may have changed (a sighting, a device, entitlement). */
  onChange(listener: () => void): void;
}
