import type { PairingEngine } from '../pairing/engine.js';

/** Entitlement is asked again at least every minute, never more often, whatever the TTL. */
const MIN_REFRESH_MS = 60_000;

/**
 * Entitlement asked at start (so `status` shows it at once) and again every TTL, and links the API
 * made but the store could not record tried again at the same pace. Returns the way to stop.
 */
export function startEntitlementRefresh(engine: PairingEngine, entitlementTtlMs: number): () => void {
  void engine.gate.check();
  const refresh = setInterval(() => {
    void engine.gate.check();
    if (engine.unsavedLinks > 0) void engine.retryUnsaved();
  }, Math.max(entitlementTtlMs, MIN_REFRESH_MS));
  refresh.unref();
  return () => clearInterval(refresh);
}
