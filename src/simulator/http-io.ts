import type { IncomingMessage, ServerResponse } from 'node:http';

const MAX_BODY_BYTES = 64 * 1024;

/** The request body as text, or undefined when it is larger than any spec'd body could be. */
export async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
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

/**
 * Resolves once `deadline` (a `performance.now()` time) has passed, never before, or at once when
 * the signal is aborted. Timers count whole milliseconds from the event loop's cached clock, so
 * one can fire up to a millisecond early or late: the timer aims at the whole milliseconds left,
 * and what remains of the last one is waited out a loop turn at a time.
 */
export async function pauseUntil(deadline: number, signal: AbortSignal): Promise<void> {
  const left = deadline - performance.now();
  if (left >= 1) await pause(Math.floor(left), signal);
  while (performance.now() < deadline && !signal.aborted) await new Promise((resolve) => setImmediate(resolve));
}

/** Resolves after `ms`, or at once when the signal is aborted (the simulator is closing). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The spec: requests with a body use `Content-Type: application/json` (parameters such as charset allowed). */
export function isJsonRequest(request: IncomingMessage): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/json\s*(;|$)/i.test(type.trim());
}
