import type { IncomingMessage, ServerResponse } from 'node:http';

// Bodies in and out of the two HTTP servers the project runs: the installer's page (src/web) and
// the panic-api simulator (src/simulator).

/** The simulator's bound: far above any spec'd request body. The page passes its own, smaller one. */
const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** Whether the request announces (Content-Length) a body over maxBytes: such a body is refused unread. */
export function declaresMoreThan(request: IncomingMessage, maxBytes: number): boolean {
  const declared = request.headers['content-length'];
  return declared !== undefined && Number(declared) > maxBytes;
}

/**
 * The request body as text, or undefined when it is over maxBytes: refused by its Content-Length
 * before a byte of it is read, or, for a body without one (chunked), as soon as what arrived passes
 * the bound. The rest is left unread and the request paused, not destroyed, so the caller can still
 * answer 413; it should add `Connection: close`, so that Node ends the connection instead of
 * reading the rest to reuse it. Also undefined when the client goes away mid-body.
 */
export function readBody(request: IncomingMessage, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<string | undefined> {
  if (declaresMoreThan(request, maxBytes)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (text: string | undefined): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onGone);
      request.off('close', onGone);
      resolve(text);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        request.pause();
        settle(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => settle(Buffer.concat(chunks).toString('utf8'));
    const onGone = (): void => settle(undefined);
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onGone);
    request.on('close', onGone);
  });
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

export function sendText(response: ServerResponse, status: number, text: string, contentType = 'text/plain; charset=utf-8'): void {
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
