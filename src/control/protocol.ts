import type { ErrorKind } from '../errors.js';
import type { LinkOutcome, PairProgress } from '../pairing/types.js';
import { isValidDeviceId } from '../discovery/sighting.js';

// The control socket's wire format: newline-delimited JSON over a unix stream socket. The client
// sends one request line; the daemon answers with zero or more `progress` / `outcome` lines and
// then exactly one `result` or `error` line, and closes. The client keeps its side open until
// that last line: closing it (EOF) means the client is gone and cancels the request. Hand-written validation, not zod: the
// client imports this module and `panic-pair status` must start fast.

export type ControlRequest =
  | { type: 'status' }
  | { type: 'devices' }
  | { type: 'scan'; seconds: number }
  | { type: 'forget'; deviceId: string }
  | { type: 'pair'; deviceId: string; timeoutMs: number }
  | { type: 'window'; seconds: number };

export type ControlReply =
  | { type: 'progress'; progress: PairProgress }
  /** One link that ended inside a pairing window, linked or not. */
  | { type: 'outcome'; outcome: LinkOutcome }
  | { type: 'result'; data: unknown }
  | { type: 'error'; kind: ErrorKind; message: string };

/** A request line longer than this is refused: nothing legitimate comes close. */
export const MAX_REQUEST_BYTES = 64 * 1024;

/** Longest scan, window or pair wait a request may ask for: one day. */
export const MAX_WAIT_SECONDS = 24 * 60 * 60;

// A Record over ErrorKind, so adding a kind in src/errors.ts without listing it here fails to compile.
const ERROR_KINDS: Record<ErrorKind, true> = {
  usage: true,
  config: true,
  'not-entitled': true,
  rejected: true,
  unauthorized: true,
  'customer-not-found': true,
  'daemon-unreachable': true,
  timeout: true,
  transient: true,
  'invalid-reply': true,
  store: true,
  locked: true,
  failure: true,
};

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && Object.hasOwn(ERROR_KINDS, value);
}

export type Validated<T> = { ok: true; value: T } | { ok: false; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveWait(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= max;
}

const DEVICE_ID_RULE = 'a deviceId is 1 to 64 characters of A-Z a-z 0-9 . _ : -';

/** Parses and checks one request line; the message of a refusal is for the person who sent it. */
export function parseRequest(line: string): Validated<ControlRequest> {
  let body: unknown;
  try {
    body = JSON.parse(line);
  } catch {
    return { ok: false, message: 'the request is not valid JSON' };
  }
  if (!isRecord(body) || typeof body.type !== 'string') {
    return { ok: false, message: 'the request must be a JSON object with a "type"' };
  }
  switch (body.type) {
    case 'status':
    case 'devices':
      return { ok: true, value: { type: body.type } };
    case 'scan':
    case 'window':
      if (!isPositiveWait(body.seconds, MAX_WAIT_SECONDS)) {
        return { ok: false, message: `"seconds" must be a number above 0 and at most ${MAX_WAIT_SECONDS}` };
      }
      return { ok: true, value: { type: body.type, seconds: body.seconds } };
    case 'forget':
      if (!isValidDeviceId(body.deviceId)) return { ok: false, message: DEVICE_ID_RULE };
      return { ok: true, value: { type: 'forget', deviceId: body.deviceId } };
    case 'pair':
      if (!isValidDeviceId(body.deviceId)) return { ok: false, message: DEVICE_ID_RULE };
      if (!isPositiveWait(body.timeoutMs, MAX_WAIT_SECONDS * 1000)) {
        return { ok: false, message: `"timeoutMs" must be a number above 0 and at most ${MAX_WAIT_SECONDS * 1000}` };
      }
      return { ok: true, value: { type: 'pair', deviceId: body.deviceId, timeoutMs: body.timeoutMs } };
    default:
      return { ok: false, message: `unknown request type "${body.type.slice(0, 40)}"` };
  }
}

/** Parses one reply line; undefined when it is not a reply this protocol knows. */
export function parseReply(line: string): ControlReply | undefined {
  let body: unknown;
  try {
    body = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(body)) return undefined;
  switch (body.type) {
    case 'progress':
      return isRecord(body.progress) ? { type: 'progress', progress: body.progress as unknown as PairProgress } : undefined;
    case 'outcome':
      return isRecord(body.outcome) ? { type: 'outcome', outcome: body.outcome as unknown as LinkOutcome } : undefined;
    case 'result':
      return { type: 'result', data: body.data };
    case 'error':
      return {
        type: 'error',
        kind: isErrorKind(body.kind) ? body.kind : 'failure',
        message: typeof body.message === 'string' ? body.message : 'the daemon reported an error without a message',
      };
    default:
      return undefined;
  }
}

export function encodeLine(value: ControlRequest | ControlReply): string {
  return `${JSON.stringify(value)}\n`;
}
