import { ERROR_KINDS, type ErrorKind } from '../errors.js';
import type { LinkOutcome, PairProgress } from '../pairing/types.js';

// The control socket's wire format: newline-delimited JSON over a unix stream socket. The client
// sends one request line; the daemon answers with zero or more `progress` / `outcome` lines (and,
// for a window, one `opened` line once it is open) and
// then exactly one `result` or `error` line, and closes. The client keeps its side open until
// that last line: closing it (EOF) means the client is gone and cancels the request. Hand-written
// validation, not zod, and the daemon's check of requests kept in requests.ts: the client imports
// this module, and `panic-pair status` must start fast.

export type ControlRequest =
  | { type: 'status' }
  | { type: 'devices' }
  | { type: 'scan'; seconds: number }
  | { type: 'forget'; deviceId: string }
  /** `customerId`: a customer of the household; the hub's own when left out. */
  /** `key`: the button's key, 32 hex digits; the socket is the daemon
   * user's alone, and the daemon never echoes it. */
  | { type: 'pair'; deviceId: string; timeoutMs: number; customerId?: number; key?: string }
  | { type: 'window'; seconds: number; customerId?: number }
  /** The household with each customer's entitlement now: an array of HouseholdEntry. */
  | { type: 'household' };

export type ControlReply =
  | { type: 'progress'; progress: PairProgress }
  /** One link that ended inside a pairing window, linked or not. */
  | { type: 'outcome'; outcome: LinkOutcome }
  /** The pairing window asked for is open now: only then may the client tell anyone to press a button. */
  | { type: 'opened' }
  | { type: 'result'; data: unknown }
  | { type: 'error'; kind: ErrorKind; message: string };

/**
 * A request line longer than this is refused: the longest legitimate one (a pair with a 64-character
 * id, a customer and a 32-digit key) is under 200 bytes. With the server's connection cap it bounds
 * what clients can make the daemon hold to a few hundred KB.
 */
export const MAX_REQUEST_BYTES = 8 * 1024;

/** Longest scan, window or pair wait a request may ask for: one day. */
export const MAX_WAIT_SECONDS = 24 * 60 * 60;

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && (ERROR_KINDS as readonly string[]).includes(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
    case 'opened':
      return { type: 'opened' };
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
