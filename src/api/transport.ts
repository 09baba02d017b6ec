import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import got from 'got';
import { describeNetworkError, replyTooLarge, type NetworkFailure } from './network-errors.js';

/**
 * The largest reply body read from the API. The API's reply bodies are a link (under 100 bytes) and a
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

/**
 * got, configured once: no retries of its own (the client's loop decides), no redirects (a
 * redirected POST could link a button somewhere unintended, and a 3xx is not a spec'd answer),
 * TLS verification pinned on whatever the environment says, keep-alive sockets, and a time limit
 * on the whole exchange including a body that stalls halfway.
 */
export function createTransport(timeoutMs: number): Transport {
  const agent = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };
  const client = got.extend({
    agent,
    retry: { limit: 0 },
    followRedirect: false,
    throwHttpErrors: false,
    timeout: { request: timeoutMs },
    // No Accept-Encoding: the replies are small, and a compressed one could unpack far past the bound.
    decompress: false,
    https: { rejectUnauthorized: true },
    headers: { accept: 'application/json', 'user-agent': 'panic-pair' },
  });

  return {
    send(request) {
      // The stream API rather than the promise: the reply is read here, bounded as it comes, and
      // the answer is handed over at the body's end, without got's promise layer (its cancelable
      // promise, its progress events, its collection of the body after the end) on the link's path.
      return new Promise<Exchange>((resolve, reject) => {
        const stream = client.stream(request.url, {
          method: request.method,
          headers: request.json === undefined
            ? { authorization: `Bearer ${request.token}` }
            : { authorization: `Bearer ${request.token}`, 'content-type': 'application/json' },
          ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
          signal: request.signal,
        });
        const chunks: Buffer[] = [];
        let bytes = 0;
        let status = 0;
        let retryAfter: string | undefined;
        let settled = false;
        const settle = (exchange: Exchange): void => {
          if (settled) return;
          settled = true;
          resolve(exchange);
        };
        const cutOff = (): void => {
          settle({ kind: 'network', failure: replyTooLarge(MAX_REPLY_BYTES) });
          stream.destroy();
        };
        stream.once('response', (response: IncomingMessage) => {
          status = response.statusCode ?? 0;
          const header = response.headers['retry-after'];
          if (header !== undefined) retryAfter = header;
          // Refused by its Content-Length, before any of its body is read.
          if (Number(response.headers['content-length'] ?? 0) > MAX_REPLY_BYTES) cutOff();
        });
        stream.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MAX_REPLY_BYTES) cutOff();
          else chunks.push(chunk);
        });
        stream.once('end', () => {
          // A compressed reply (sent though none was asked for) is read as text all the same: it
          // is no JSON, and the reply is judged invalid like any other garbage.
          const body = Buffer.concat(chunks, bytes).toString('utf8');
          settle({ kind: 'reply', status, body, ...(retryAfter === undefined ? {} : { retryAfter }) });
        });
        stream.once('error', (error: unknown) => {
          if (settled) return;
          // The caller's abort is not the API's failure: hand the caller its own reason back.
          if (request.signal.aborted) {
            settled = true;
            reject(request.signal.reason);
            return;
          }
          settle({ kind: 'network', failure: describeNetworkError(error, timeoutMs) });
        });
      });
    },
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}
