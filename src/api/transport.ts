import http from 'node:http';
import https from 'node:https';
import got from 'got';
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
    async send(request) {
      let tooLarge = false;
      try {
        const pending = client(request.url, {
          method: request.method,
          headers: { authorization: `Bearer ${request.token}` },
          ...(request.json === undefined ? {} : { json: request.json }),
          responseType: 'text',
          signal: request.signal,
        });
        // First called when the headers arrive (total: the Content-Length), then as the body does.
        pending.on('downloadProgress', (progress: { transferred: number; total?: number }) => {
          if (tooLarge || (progress.transferred <= MAX_REPLY_BYTES && (progress.total ?? 0) <= MAX_REPLY_BYTES)) return;
          tooLarge = true;
          pending.cancel();
        });
        const response = await pending;
        const retryAfter = response.headers['retry-after'];
        // A compressed reply (sent though none was asked for) comes as bytes: read as text, it is
        // no JSON, and the reply is judged invalid like any other garbage.
        const body: unknown = response.body;
        return {
          kind: 'reply',
          status: response.statusCode,
          body: typeof body === 'string' ? body : String(body),
          ...(retryAfter === undefined ? {} : { retryAfter }),
        };
      } catch (error) {
        // The caller's abort is not the API's failure: hand the caller its own reason back.
        if (request.signal.aborted) throw request.signal.reason;
        if (tooLarge) return { kind: 'network', failure: replyTooLarge(MAX_REPLY_BYTES) };
        return { kind: 'network', failure: describeNetworkError(error, timeoutMs) };
      }
    },
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}
