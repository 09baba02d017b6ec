import { createServer, type Server, type Socket } from 'node:net';
import { afterEach } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions, type ApiRequestEvent } from '../../src/api/index.js';
import { Secret } from '../../src/config/secret.js';

// An API that answers as no spec'd one would, written byte by byte over loopback: each request
// gets the next behaviour of a queue, and once the queue is empty a well-formed answer.

export type Behaviour = (socket: Socket, request: string) => void;

export interface HostileApi {
  url: string;
  /** Requests seen, in order (request line and headers). */
  requests: string[];
  queue: Behaviour[];
  close(): Promise<void>;
}

const open: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** A whole HTTP/1.1 reply, each character of `body` one byte (latin1), as garbage needs. */
export function reply(status: number, body: string, headers: Record<string, string> = {}): Buffer {
  const lines = Object.entries({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body, 'latin1')), connection: 'close', ...headers });
  return Buffer.from(`HTTP/1.1 ${status} X\r\n${lines.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n${body}`, 'latin1');
}

/** The answer a spec'd API gives: the link asked for, or one active subscription. */
function wellFormed(socket: Socket, request: string): void {
  const body = request.slice(request.indexOf('\r\n\r\n') + 4);
  if (request.startsWith('POST')) {
    const asked = JSON.parse(body) as { customerId: number; deviceId: string };
    socket.end(reply(201, JSON.stringify({ id: 1, customerId: asked.customerId, deviceId: asked.deviceId })));
  } else {
    socket.end(reply(200, JSON.stringify([{ id: 1, customerId: 42, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] }])));
  }
}

export async function startHostileApi(): Promise<HostileApi> {
  const sockets = new Set<Socket>();
  const api: HostileApi = { url: '', requests: [], queue: [], close: async () => undefined };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1] ?? 0);
      if (text.length < end + 4 + length) return;
      const request = text;
      text = '';
      api.requests.push(request.slice(0, end));
      (api.queue.shift() ?? wellFormed)(socket, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  api.url = `http://127.0.0.1:${port}`;
  api.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  open.push(api.close);
  return api;
}

export interface HostileRig {
  api: HostileApi;
  client: ApiClient;
  delays: number[];
  events: ApiRequestEvent[];
}

export async function hostileRig(client: Partial<ApiClientOptions> = {}): Promise<HostileRig> {
  const api = await startHostileApi();
  const delays: number[] = [];
  const events: ApiRequestEvent[] = [];
  const apiClient = createApiClient({
    baseUrl: api.url,
    token: () => new Secret('tok-hostile-never-print'),
    timeoutMs: 2_000,
    maxInFlight: 4,
    retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 4 },
    sleep: async (ms) => void delays.push(ms),
    onRequest: (event) => events.push(event),
    ...client,
  });
  open.push(async () => apiClient.close());
  return { api, client: apiClient, delays, events };
}
