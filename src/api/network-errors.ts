import { ApiError, ApiFailureError } from './errors.js';

/** What one failed attempt amounts to when the API never gave a full reply. */
export interface NetworkFailure {
  /** Short and free of secrets: built from the error's code alone. */
  message: string;
  retryable: boolean;
  /** The error to throw at once when the failure is not worth retrying. */
  error?: ApiError;
}

const DROPPED = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_READING_RESPONSE_STREAM',
]);
const UNREACHABLE = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN', 'EHOSTDOWN']);
// On a hub that just booted, name resolution fails until the network is up: worth waiting for.
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN']);
const TLS = /^(CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_TLS_|ERR_SSL_|EPROTO$)/;

export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** A reply cut off at the bound: as a dropped connection, retried (a POST links once, as after a drop). */
export function replyTooLarge(maxBytes: number): NetworkFailure {
  return { message: `the API's reply was longer than ${maxBytes / 1024} KiB and was cut off`, retryable: true };
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Sorts a transport error into a message and whether to retry. Deliberately reads only `code`
 * (and got's TimeoutError name): got's errors hold the request headers, so nothing else of them
 * may reach a message.
 */
export function describeNetworkError(error: unknown, timeoutMs: number): NetworkFailure {
  const code = codeOf(error);
  const name = error instanceof Error ? error.name : undefined;
  if (name === 'TimeoutError' || code === 'ETIMEDOUT') {
    return { message: `the API did not answer within ${formatDuration(timeoutMs)}`, retryable: true };
  }
  if (code === 'ECONNREFUSED') return { message: 'connection refused', retryable: true };
  if (code !== undefined && DROPPED.has(code)) {
    return { message: 'the connection was dropped before the reply was complete', retryable: true };
  }
  // Node's HTTP parser refused the reply (HPE_*): a proxy or portal answering garbage, as a
  // dropped connection is retried, and never read as an answer.
  if (code?.startsWith('HPE_') === true) return { message: `the API's reply was not valid HTTP (${code})`, retryable: true };
  if (code !== undefined && UNREACHABLE.has(code)) return { message: 'the network is unreachable', retryable: true };
  if (code !== undefined && UNRESOLVED.has(code)) {
    return { message: "the API's host name could not be resolved", retryable: true };
  }
  // A hub whose clock is not yet set (a Pi before NTP) sees every certificate as not yet valid:
  // a passing failure, gone once the clock is right, and never the device's fault.
  if (code === 'CERT_NOT_YET_VALID') {
    return { message: `the API's certificate is not yet valid by this hub's clock (${code}); is the system clock set?`, retryable: true };
  }
  if (code !== undefined && TLS.test(code)) {
    const message = `the API's TLS certificate or handshake was refused (${code})`;
    return { message, retryable: false, error: new ApiFailureError(message) };
  }
  if (code === 'ERR_INVALID_CHAR' || code === 'ERR_HTTP_INVALID_HEADER_VALUE') {
    const message = 'the API token holds characters that an HTTP header cannot carry';
    return { message, retryable: false, error: new ApiError('config', message) };
  }
  const message = `the request failed (${code ?? name ?? 'unknown error'})`;
  return { message, retryable: false, error: new ApiFailureError(message) };
}
