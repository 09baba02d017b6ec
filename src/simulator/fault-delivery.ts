import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Fault } from './faults.js';
import { sendJson, sendText } from '../http/json-io.js';
import { pause } from './http-io.js';
import type { Reply } from './api-routes.js';

// How a fault bends an answer. Some faults replace the answer before the API does anything (a 5xx,
// a dropped connection, a body that is not JSON: nothing is linked); the others let the API act and
// then spoil the reply on its way out (a stalled body, a reply naming another device or customer).

export function replacesAnswer(fault: Fault): boolean {
  return fault.type === 'status' || fault.type === 'drop' || fault.type === 'not-json';
}

/** Answers in the fault's place; only for faults that `replacesAnswer`. */
export function answerWithFault(request: IncomingMessage, response: ServerResponse, fault: Fault): void {
  switch (fault.type) {
    case 'status': {
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
      sendJson(response, fault.status, { message: fault.message ?? STATUS_CODES[fault.status] ?? 'simulated fault' }, headers);
      return;
    }
    case 'drop':
      request.socket.destroy();
      return;
    default:
      sendText(response, 200, '<html><body>not JSON</body></html>', 'text/html; charset=utf-8');
  }
}

function spoil(reply: Reply, fault: Fault | undefined): unknown {
  const body = reply.body;
  if (reply.status >= 300 || typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const link = body as { customerId: number; deviceId: string };
  if (fault?.type === 'other-device') return { ...link, deviceId: fault.deviceId ?? `${link.deviceId}-OTHER` };
  if (fault?.type === 'other-customer') return { ...link, customerId: fault.customerId ?? link.customerId + 1 };
  return body;
}

/** Sends the API's answer, spoiled by the fault if it is one that acts on the way out. */
export async function deliver(response: ServerResponse, reply: Reply, fault: Fault | undefined, closing: AbortSignal): Promise<void> {
  const body = spoil(reply, fault);
  if (fault?.type !== 'slow-body') {
    sendJson(response, reply.status, body);
    return;
  }
  const text = Buffer.from(JSON.stringify(body));
  const half = Math.floor(text.length / 2);
  response.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': text.length });
  response.write(text.subarray(0, half));
  // Stall until told to go on, until the client gives up, or until the simulator closes.
  const gone = new AbortController();
  response.once('close', () => gone.abort());
  await pause(fault.stallMs ?? 2 ** 31 - 1, AbortSignal.any([gone.signal, closing]));
  if (!response.destroyed) response.end(text.subarray(half));
}
