import { PanicPairError, type ErrorKind } from '../errors.js';

// Every error the client throws. Messages are built here from the status or the network error's
// code, never from got's own errors: those carry the request options, headers and so the token.

export class ApiError extends PanicPairError {
  /** The HTTP status, when the API answered at all. */
  readonly status: number | undefined;

  constructor(kind: ErrorKind, message: string, status?: number) {
    super(kind, message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** 400: the API refused the request; `message` is the API's own reason when it gave one. */
export class ApiRejectedError extends ApiError {
  constructor(message: string) {
    super('rejected', message, 400);
    this.name = 'ApiRejectedError';
  }
}

/** 401, or no token to send. */
export class ApiUnauthorizedError extends ApiError {
  constructor(message: string, status?: number) {
    super('unauthorized', message, status);
    this.name = 'ApiUnauthorizedError';
  }
}

/** 404 on the customer's subscription list. */
export class CustomerNotFoundError extends ApiError {
  constructor(message: string) {
    super('customer-not-found', message, 404);
    this.name = 'CustomerNotFoundError';
  }
}

/** 5xx, 429, time-outs and dropped connections, once every retry is spent. */
export class ApiTransientError extends ApiError {
  readonly attempts: number;

  constructor(message: string, attempts: number, status?: number) {
    super('transient', message, status);
    this.name = 'ApiTransientError';
    this.attempts = attempts;
  }
}

/** A 2xx whose body is not JSON, breaks the spec's schema, or names another device or customer. */
export class InvalidReplyError extends ApiError {
  constructor(message: string, status?: number) {
    super('invalid-reply', message, status);
    this.name = 'InvalidReplyError';
  }
}

/** Anything else: a status the spec does not name (3xx, 403, 409, ...), a TLS failure, a closed client. */
export class ApiFailureError extends ApiError {
  constructor(message: string, status?: number) {
    super('failure', message, status);
    this.name = 'ApiFailureError';
  }
}

const MAX_API_MESSAGE = 200;

/**
 * The reason a 400 reply gives, if any: a string `message` or `error` field of a JSON object, or
 * a short plain-text body. Control characters are flattened so the reason stays on one log line.
 */
export function apiMessageOf(body: string): string | undefined {
  let text: string | undefined;
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const fields = value as Record<string, unknown>;
      text = [fields.message, fields.error].find((field): field is string => typeof field === 'string');
    }
  } catch {
    // Not JSON: plain text is fine, markup (an HTML error page from a proxy) is not a reason.
    if (!body.trimStart().startsWith('<')) text = body;
  }
  if (text === undefined) return undefined;
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (flat === '') return undefined;
  return flat.length > MAX_API_MESSAGE ? `${flat.slice(0, MAX_API_MESSAGE - 1)}…` : flat;
}

/** The error for a reply that is neither 2xx nor worth retrying. */
export function errorForStatus(status: number, body: string): ApiError {
  switch (status) {
    case 400:
      return new ApiRejectedError(apiMessageOf(body) ?? 'the API rejected the request (400)');
    case 401:
      return new ApiUnauthorizedError('the API refused the token (401)', 401);
    case 404:
      return new CustomerNotFoundError('the API does not know this customer (404)');
    default:
      return new ApiFailureError(`the API answered ${status}, which the spec does not name for this request`, status);
  }
}

/** 429 and every 5xx are worth another attempt; other statuses will not change by asking again. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}
