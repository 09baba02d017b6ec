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
  /** `pair` stopped with Ctrl-C (128 + SIGINT, as a shell reports it). */
  interrupted: 130,
} as const;

/** What each exit code tells the person who sees it: `--help` prints these, and `man panic-pair` sets that help. */
export const EXIT_MEANINGS: ReadonlyArray<readonly [code: number, meaning: string]> = [
  [EXIT.ok, 'done; status, fleet: healthy; check: every check passed'],
  [EXIT.failure, 'any other failure, said in words; status: degraded; fleet: not all healthy'],
  [EXIT.usage, 'a usage or setting error, naming it; fleet: the central broker unreadable'],
  [EXIT.notEntitled, 'the customer holds no active subscription; nothing was posted'],
  [EXIT.rejected, 'the API rejected the link (400)'],
  [EXIT.unauthorized, 'the API refused the token (401), or there is none'],
  [EXIT.customerNotFound, 'the customer was not found (404)'],
  [EXIT.daemonUnreachable, 'the daemon is not running, or its socket is not yours to open'],
  [EXIT.timeout, 'timed out: the button was not heard, or the API did not answer, in time'],
  [EXIT.unverified, "the key does not verify the button's reports; nothing was posted"],
  [EXIT.storeRefused, 'run: the pairing store cannot be opened'],
  [EXIT.interrupted, 'pair: stopped with Ctrl-C'],
];

/** The exit codes as `--help` ends. */
export function exitCodesHelp(): string {
  return ['', 'Exit codes:', ...EXIT_MEANINGS.map(([code, meaning]) => `  ${String(code).padEnd(4)}${meaning}`)].join('\n');
}

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
  'other-customer': EXIT.failure,
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
