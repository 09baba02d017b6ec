import http from 'node:http';
import type { AddressInfo } from 'node:net';

// An HTTP relay between the daemon and the simulator that keeps what went through: the request
// bodies the daemon sent and the replies it got. The simulator counts requests; this shows what
// they said (which customer a POST named).

export interface RecordedExchange {
  method: string;
  path: string;
  requestBody: string;
  /** Absent when the upstream failed before answering. */
  status?: number;
  responseBody?: string;
}

export interface ApiRecorder {
  url: string;
  readonly exchanges: RecordedExchange[];
  /** The JSON bodies of every `POST /panic-api/v2/devices`. */
  linkBodies(): Array<Record<string, unknown>>;
  /** Called as each request arrives, before its body is read or it goes on to the simulator. */
  onRequest: ((method: string, path: string) => void) | undefined;
  /** Where requests go (the simulator's base address); requests before this wait for it. */
  setTarget(url: string): void;
  close(): Promise<void>;
}

export async function startApiRecorder(): Promise<ApiRecorder> {
  let setTarget!: (url: string) => void;
  const target = new Promise<URL>((resolve) => (setTarget = (url) => resolve(new URL(url))));
  const exchanges: RecordedExchange[] = [];
  const server = http.createServer((request, response) => {
    recorder.onRequest?.(request.method ?? '?', request.url ?? '/');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const exchange: RecordedExchange = { method: request.method ?? '?', path: request.url ?? '/', requestBody: Buffer.concat(chunks).toString('utf8') };
      exchanges.push(exchange);
      void target.then((base) => {
        const upstream = http.request(
          { host: base.hostname, port: base.port, method: request.method, path: request.url, headers: request.headers },
          (reply) => {
            const body: Buffer[] = [];
            reply.on('data', (chunk: Buffer) => body.push(chunk));
            reply.on('end', () => {
              exchange.status = reply.statusCode;
              exchange.responseBody = Buffer.concat(body).toString('utf8');
              response.writeHead(reply.statusCode ?? 502, reply.headers);
              response.end(Buffer.concat(body));
            });
            reply.on('error', () => response.destroy());
          },
        );
        upstream.on('error', () => response.destroy());
        upstream.end(Buffer.concat(chunks));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const recorder: ApiRecorder = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    linkBodies: () =>
      exchanges.filter((e) => e.method === 'POST' && e.path.endsWith('/devices')).map((e) => JSON.parse(e.requestBody) as Record<string, unknown>),
    onRequest: undefined,
    setTarget,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return recorder;
}
