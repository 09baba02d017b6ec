// The actions of the page, each checked by the control socket's own request rules (requests.ts)
// before it reaches the engine: what a browser may ask is exactly what `panic-pair` may ask. A
// refusal carries a `code` beside its English `error`: the page words the code in the installer's
// language, scripts may read either.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkRequest } from '../control/requests.js';
import { PanicPairError, errorKindOf, messageOf } from '../errors.js';
import { readBody, sendJson } from '../http/json-io.js';
import { PAGE_PAIR_TIMEOUT_MS, type PageActivity } from './activity.js';
import { MAX_BODY_BYTES, refuse, tooLarge } from './request-bounds.js';
import type { PageHandlers } from './port.js';

/** A window from the page always ends by itself, and within what Zigbee2MQTT's permit-join allows. */
export const MAX_PAGE_WINDOW_SECONDS = 254;

export async function pageAction(
  route: '/api/pair' | '/api/window' | '/api/forget' | '/api/check',
  request: IncomingMessage,
  response: ServerResponse,
  context: { activity: PageActivity; handlers: PageHandlers; address: string },
): Promise<void> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) return sendJson(response, 415, { error: 'send application/json', code: 'invalid' });
  const text = await readBody(request, MAX_BODY_BYTES);
  if (text === undefined) return refuse(response, tooLarge);
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    body = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return sendJson(response, 400, { error: 'the request is not valid JSON', code: 'invalid' });
  }
  const { activity, handlers, address } = context;
  switch (route) {
    case '/api/pair': {
      // The engine decides whether the customer is in the household and entitled (fail closed).
      // A button's key travels only over HTTPS: refused, unread, over plain HTTP.
      const key = body.key === undefined || body.key === '' ? undefined : body.key;
      if (key !== undefined && (request.socket as { encrypted?: boolean }).encrypted !== true) {
        return sendJson(response, 400, { error: 'a button key is taken only over HTTPS', code: 'invalid' });
      }
      const checked = checkRequest({ type: 'pair', deviceId: body.deviceId, timeoutMs: PAGE_PAIR_TIMEOUT_MS, customerId: body.customerId, ...(key === undefined ? {} : { key }) });
      if (!checked.ok || checked.value.type !== 'pair') return sendJson(response, 400, { error: refusal(checked), code: 'invalid' });
      const { deviceId } = checked.value;
      if (!activity.pair(deviceId, checked.value.customerId ?? handlers.status().customerId, address, checked.value.key)) {
        return sendJson(response, 409, { error: `${deviceId} is already being paired: press the button, or wait until this pairing ends`, code: 'pairing-running' });
      }
      return sendJson(response, 202, { deviceId });
    }
    case '/api/window': {
      const seconds = body.seconds;
      if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_PAGE_WINDOW_SECONDS) {
        return sendJson(response, 400, { error: `"seconds" must be a whole number from 1 to ${MAX_PAGE_WINDOW_SECONDS}`, code: 'invalid' });
      }
      const checked = checkRequest({ type: 'window', seconds, customerId: body.customerId });
      if (!checked.ok || checked.value.type !== 'window') return sendJson(response, 400, { error: refusal(checked), code: 'invalid' });
      const customerId = checked.value.customerId ?? handlers.status().customerId;
      if (!activity.openWindow(seconds, customerId, address)) return sendJson(response, 409, { error: 'a pairing window is already open', code: 'window-open' });
      return sendJson(response, 202, { seconds, customerId });
    }
    case '/api/check':
      if (!activity.check(address)) return sendJson(response, 409, { error: 'the checks are already running', code: 'checks-running' });
      return sendJson(response, 202, {});
    case '/api/forget': {
      const checked = checkRequest({ type: 'forget', deviceId: body.deviceId });
      if (!checked.ok || checked.value.type !== 'forget') return sendJson(response, 400, { error: refusal(checked), code: 'invalid' });
      try {
        return sendJson(response, 200, await activity.forget(checked.value.deviceId, address));
      } catch (error) {
        const status = error instanceof PanicPairError && error.kind === 'usage' ? 409 : 500;
        return sendJson(response, status, { error: messageOf(error), code: errorKindOf(error) });
      }
    }
  }
}

function refusal(checked: { ok: true } | { ok: false; message: string }): string {
  return checked.ok ? 'unexpected request' : checked.message;
}
