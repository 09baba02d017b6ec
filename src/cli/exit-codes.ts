import type { ErrorKind } from '../errors.js';

// The one place where error kinds become exit codes (docs/reference/cli.md lists them).
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  notEntitled: 3,
  rejected: 4,
  unauthorized: 5,
  customerNotFound: 6,
  daemonUnreachable: 7,
  timeout: 8,
  unverified: 9,
  /** `run` alone: the store could not be opened at start (sysexits' EX_DATAERR), told apart from a crash by an update's judge. */
  storeRefused: 65,
} as const;

const byKind: Record<ErrorKind, number> = {
  usage: EXIT.usage,
  config: EXIT.usage,
  'not-entitled': EXIT.notEntitled,
  rejected: EXIT.rejected,
  unauthorized: EXIT.unauthorized,
  'customer-not-found': EXIT.customerNotFound,
  'daemon-unreachable': EXIT.daemonUnreachable,
  timeout: EXIT.timeout,
  unverified: EXIT.unverified,
  transient: EXIT.failure,
  'invalid-reply': EXIT.failure,
  store: EXIT.failure,
  'store-refused': EXIT.storeRefused,
  locked: EXIT.failure,
  failure: EXIT.failure,
};

export function exitCodeOf(kind: ErrorKind): number {
  return byKind[kind];
}
