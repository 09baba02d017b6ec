import type { LinkOutcome, OutageWait } from './types.js';

// `pair <id> --timeout S` and `pair --window S` go on trying a link that
// failed for a passing reason (the API unreachable, 5xx, 429, a time-out, a certificate not yet
// valid) until their time is up. On a hub behind 4G or a flaky Wi-Fi an outage of a few seconds
// is ordinary; the installer on site must not be told it failed while it is still being tried.

/** Only a passing failure is worth another try now; a refusal (400, 401, 404, not entitled) is an answer. */
export function isPassingFailure(outcome: LinkOutcome): outcome is LinkOutcome & { ok: false } {
  return !outcome.ok && outcome.kind === 'transient';
}

/** 1 s, 2 s, then every 4 s: a short outage is over by the second or third try, a long one is asked about often enough. */
export function outageRetryMs(attempt: number): number {
  return Math.min(4_000, 1_000 * 2 ** Math.max(0, attempt - 1));
}

/** "the API at https://api.example.com is unreachable (connection refused)" */
export function outageText(api: string, reason: string): string {
  const bare = reason.replace(/ \(\d+ attempts?\)$/, '');
  if (/^the API (answered|did not answer)/.test(bare)) return `the API at ${api}${bare.slice('the API'.length)}`;
  return `the API at ${api} is unreachable (${bare})`;
}

export function waitText(wait: OutageWait): string {
  return `${outageText(wait.api, wait.reason)}; trying again in ${Math.max(1, Math.round(wait.inMs / 1000))} s`;
}

/** The words at the end of a pair still not linked: the hub has not given up, and where to watch. */
export const KEEPS_TRYING = 'the hub keeps trying in the background; watch it with `panic-pair devices`';
