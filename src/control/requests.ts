import { isValidDeviceId } from '../device-id.js';
import { isRecord, MAX_WAIT_SECONDS, type ControlRequest } from './protocol.js';

// The daemon's check of each request line against the wire format (protocol.ts). Kept out of
// protocol.ts, which the CLI loads, because only the daemon applies the deviceId rule to what it reads.

export type Validated<T> = { ok: true; value: T } | { ok: false; message: string };

function isPositiveWait(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= max;
}

const DEVICE_ID_RULE = 'a deviceId is 1 to 64 characters of A-Z a-z 0-9 . _ : -';
const CUSTOMER_ID_RULE = '"customerId" must be an integer, a customer of the household';

/** A request's optional customer: absent, or an integer (whether it is in the household is the engine's to say). */
function customerOf(body: Record<string, unknown>): Validated<{ customerId?: number }> {
  if (body.customerId === undefined) return { ok: true, value: {} };
  if (!Number.isSafeInteger(body.customerId)) return { ok: false, message: CUSTOMER_ID_RULE };
  return { ok: true, value: { customerId: body.customerId as number } };
}

/** Parses and checks one request line; the message of a refusal is for the person who sent it. */
export function parseRequest(line: string): Validated<ControlRequest> {
  let body: unknown;
  try {
    body = JSON.parse(line);
  } catch {
    return { ok: false, message: 'the request is not valid JSON' };
  }
  return checkRequest(body);
}

/** Checks a request already parsed (a control line, or an action of the installer's page). */
export function checkRequest(body: unknown): Validated<ControlRequest> {
  if (!isRecord(body) || typeof body.type !== 'string') {
    return { ok: false, message: 'the request must be a JSON object with a "type"' };
  }
  switch (body.type) {
    case 'status':
    case 'devices':
    case 'household':
      return { ok: true, value: { type: body.type } };
    case 'scan':
    case 'window': {
      if (!isPositiveWait(body.seconds, MAX_WAIT_SECONDS)) {
        return { ok: false, message: `"seconds" must be a number above 0 and at most ${MAX_WAIT_SECONDS}` };
      }
      if (body.type === 'scan') return { ok: true, value: { type: 'scan', seconds: body.seconds } };
      const customer = customerOf(body);
      if (!customer.ok) return customer;
      return { ok: true, value: { type: 'window', seconds: body.seconds, ...customer.value } };
    }
    case 'forget':
      if (!isValidDeviceId(body.deviceId)) return { ok: false, message: DEVICE_ID_RULE };
      return { ok: true, value: { type: 'forget', deviceId: body.deviceId } };
    case 'pair': {
      if (!isValidDeviceId(body.deviceId)) return { ok: false, message: DEVICE_ID_RULE };
      if (!isPositiveWait(body.timeoutMs, MAX_WAIT_SECONDS * 1000)) {
        return { ok: false, message: `"timeoutMs" must be a number above 0 and at most ${MAX_WAIT_SECONDS * 1000}` };
      }
      const customer = customerOf(body);
      if (!customer.ok) return customer;
      if (body.key !== undefined && (typeof body.key !== 'string' || !/^[0-9a-fA-F]{32}$/.test(body.key))) {
        return { ok: false, message: '"key" must be 32 hex digits' };
      }
      const key = typeof body.key === 'string' ? { key: body.key } : {};
      return { ok: true, value: { type: 'pair', deviceId: body.deviceId, timeoutMs: body.timeoutMs, ...customer.value, ...key } };
    }
    default:
      return { ok: false, message: `unknown request type "${body.type.slice(0, 40)}"` };
  }
}
