import http from 'node:http';
import https from 'node:https';
import got from 'got';
import { describeNetworkError, type NetworkFailure } from './network-errors.js';

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
    https: { rejectUnauthorized: true },
    headers: { accept: 'application/json', 'user-agent': 'panic-pair' },
  });

  return {
    async send(request) {
      try {
        const response = await client(request.url, {
          method: request.method,
          headers: { authorization: `Bearer ${request.token}` },
          ...(request.json === undefined ? {} : { json: request.json }),
          responseType: 'text',
          signal: request.signal,
        });
        const retryAfter = response.headers['retry-after'];
        return {
          kind: 'reply',
          status: response.statusCode,
          body: response.body,
          ...(retryAfter === undefined ? {} : { retryAfter }),
        };
      } catch (error) {
        // The caller's abort is not the API's failure: hand the caller its own reason back.
        if (request.signal.aborted) throw request.signal.reason;
        return { kind: 'network', failure: describeNetworkError(error, timeoutMs) };
      }
    },
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}
