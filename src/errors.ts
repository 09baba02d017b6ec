// Errors are values with a kind; the CLI maps kinds to its exit codes in one place
// (src/cli/exit-codes.ts). Every module throws a PanicPairError (or a subclass) for anything a
// user may see, so the message is written for the installer reading it.
export const ERROR_KINDS = [
  'usage', // a command used wrongly
  'config', // a setting is missing or malformed
  'not-entitled', // the customer holds no active subscription
  'rejected', // the API answered 400
  'unauthorized', // the API answered 401, or no token
  'customer-not-found', // the API answered 404 for the customer
  'daemon-unreachable', // the control socket cannot be reached
  'timeout', // the button was not seen, or the API did not answer, in time
  'unverified', // the button's reports do not verify with the key given; nothing was posted
  'other-customer', // the button belongs to another customer of the hub; nothing was posted
  'transient', // the API or network failed in a way worth retrying
  'invalid-reply', // the API answered 2xx with a body that breaks the spec
  'store', // the pairing store cannot be read or written
  'store-refused', // `run` could not open its store at start (a rollback's judge tells this from a crash)
  'locked', // another process owns the state dir
  'failure', // anything else
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export class PanicPairError extends Error {
  readonly kind: ErrorKind;

  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
    this.name = 'PanicPairError';
  }
}

export function errorKindOf(error: unknown): ErrorKind {
  return error instanceof PanicPairError ? error.kind : 'failure';
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `code` an error carries: a system error's 'ECONNREFUSED', a broker's CONNACK number, or undefined. */
export function errorCodeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null | undefined)?.code;
}
