import http from 'node:http';
import https from 'node:https';
import { describeNetworkError, replyTooLarge, type NetworkFailure } from './network-errors.js';

/**
 * The largest reply body read from the API. The spec's bodies are a link (under 100 bytes) and a
 * customer's subscriptions (about 120 bytes each, more with dependants): 256 KiB holds some two
 * thousand subscriptions, far beyond a household, and with at most 64 requests in flight bounds
 * what the API can make the daemon hold. A longer reply is cut off where it passes the bound (by
 * its Content-Length, before its body is read) and counts as a dropped connection: retried, never
 * taken as an answer.
 */
export const MAX_REPLY_BYTES = 256 * 1024;

/** One HTTP exchange with the API, before any judgement of the status. */
export type Exchange =
  | { kind: 'reply'; status: number; body: string; retryAfter?: string }
  | { kind: 'network'; failure: NetworkFailure };

export interface ExchangeRequest {
  method: 'GET' | 'POST';
  url: string;
  token: string;
  json?: Record<string, unknown>;
  signal: AbortSignal;
}

export interface Transport {
  send(request: ExchangeRequest): Promise<Exchange>;
  close(): void;
}

/** The whole exchange took longer than its limit; named as got named it, for describeNetworkError. */
class ExchangeTimeout extends Error {
  override name = 'TimeoutError';
  readonly code = 'ETIMEDOUT';
}

/**
 * Node's own HTTP client, one request an exchange: no retries of its own (the client's loop
 * decides), no redirects followed (a redirected POST could link a button somewhere unintended, and
 * a 3xx is not a spec'd answer), TLS verification pinned on whatever the environment says,
 * keep-alive sockets, a time limit on the whole exchange including a body that stalls halfway, and
 * a bound on the reply's size. No Accept-Encoding is sent: a compressed reply (sent anyway) is read
 * as bytes, is no JSON, and is judged invalid like any other garbage.
 *
 * got did this until issue 36: its options, its request object and its stream wrapper cost more
 * CPU a request than node's client itself, on the path from a button's announcement to its link.
 */
export function createTransport(timeoutMs: number): Transport {
  const agent = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };

  return {
    send(request) {
      return exchange(request, timeoutMs, agent).catch((error: unknown) => {
        // The caller's abort is not the API's failure: hand the caller its own reason back.
        if (request.signal.aborted) throw request.signal.reason;
        return { kind: 'network', failure: describeNetworkError(error, timeoutMs) } as const;
      });
    },
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}

function exchange(request: ExchangeRequest, timeoutMs: number, agent: { http: http.Agent; https: https.Agent }): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    request.signal.throwIfAborted();
    const url = new URL(request.url);
    const secure = url.protocol === 'https:';
    const body = request.json === undefined ? undefined : JSON.stringify(request.json);
    const headers: http.OutgoingHttpHeaders = {
      accept: 'application/json',
      'user-agent': 'panic-pair',
      authorization: `Bearer ${request.token}`,
    };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const options: https.RequestOptions = { method: request.method, headers, signal: request.signal };
    // Whatever the environment says, the API's certificate is always checked.
    if (secure) Object.assign(options, { agent: agent.https, rejectUnauthorized: true });
    else options.agent = agent.http;
    // Throws at once on a header that cannot be sent (a token with a newline): a network failure.
    const outgoing = (secure ? https : http).request(url, options, (response) => {
      const chunks: Buffer[] = [];
      let received = 0;
      const cutOff = (): void => {
        clearTimeout(timer);
        resolve({ kind: 'network', failure: replyTooLarge(MAX_REPLY_BYTES) });
        outgoing.destroy();
      };
      if (Number(response.headers['content-length'] ?? 0) > MAX_REPLY_BYTES) return cutOff();
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_REPLY_BYTES) return cutOff();
        chunks.push(chunk);
      });
      response.on('error', fail);
      // A connection dropped halfway through the body: no 'end', and the reply is not the API's.
      response.on('close', () => {
        if (!response.complete) fail(Object.assign(new Error('the reply was cut short'), { code: 'ECONNRESET' }));
      });
      response.on('end', () => {
        clearTimeout(timer);
        const retryAfter = response.headers['retry-after'];
        resolve({
          kind: 'reply',
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          ...(retryAfter === undefined ? {} : { retryAfter }),
        });
      });
    });
    const timer = setTimeout(() => outgoing.destroy(new ExchangeTimeout(`no complete reply within ${timeoutMs} ms`)), timeoutMs);
    function fail(error: unknown): void {
      clearTimeout(timer);
      reject(error);
    }
    outgoing.on('error', fail);
    outgoing.end(body);
  });
}
