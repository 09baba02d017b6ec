export const FIRST_RECONNECT_DELAY_MS = 1_000;
export const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * Wait before reconnect attempt `attempt` (0 for the first after a loss): 1 s doubling to 30 s.
 * A hub whose broker is down for hours retries twice a minute instead of flooding the log and
 * the network; a broker that restarts is back within a second or two.
 */
export function reconnectDelay(attempt: number): number {
  if (attempt >= 5) return MAX_RECONNECT_DELAY_MS;
  return Math.min(FIRST_RECONNECT_DELAY_MS * 2 ** Math.max(0, attempt), MAX_RECONNECT_DELAY_MS);
}
