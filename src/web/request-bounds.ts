// What one client may send the installer's page, and for how long it may hold a connection.
// The page serves one installer with a phone: every bound below is far above what a
// browser sends, and small enough that a flood of requests from the LAN costs the hub little. A
// request over a bound is answered with a status that names it (413, 431, 408) and its connection
// closed; nothing of it is kept.
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { declaresMoreThan, sendJson } from '../http/json-io.js';

/**
 * The largest body the page sends is a pair request (a 64-character id, a customer, a 32-digit
 * key): under 200 bytes. A sign-in form is smaller still.
 */
export const MAX_BODY_BYTES = 4 * 1024;
/** A browser sends 10 to 20 headers; a proxy or an extension may add a few. */
export const MAX_HEADER_COUNT = 64;
/**
 * All header lines together, checked by Node's parser before the request reaches the page (431).
 * Node's default is 16 KB; 8 KB is what nginx and Apache allow a line by default.
 */
export const MAX_HEADER_BYTES = 8 * 1024;
/**
 * The Cookie header: a browser sends every cookie of the host (other services on the hub's address
 * included), each at most 4 KB; the page's own is under 100 bytes.
 */
export const MAX_COOKIE_BYTES = 4 * 1024;
/** From a connection's first byte to its last header: a phone on weak Wi-Fi sends them in one packet. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** From the first byte to the end of the body (the live channel's reply may last; its request may not). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** An idle kept-alive connection: long enough for the page's next request after a tap. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/**
 * How often Node looks for connections past those times (its default, 30 s, would let a slow
 * client hold a connection up to 40 s instead of 10). Walking a few dozen connections is cheap.
 */
export const CONNECTIONS_CHECK_MS = 1_000;
/** Open connections at once: 16 live pages and their requests fit, a flood of sockets does not. */
export const MAX_CONNECTIONS = 64;
/**
 * After refusing a request whose body is still arriving, how long the page still takes (and drops)
 * what its client sends: a client reads the answer and closes within a round trip or two.
 */
export const LINGER_MS = 2_000;

/** The options only createServer takes. */
export function serverOptions(): ServerOptions {
  return {
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
  };
}

export function boundServer(server: Server): void {
  server.maxConnections = MAX_CONNECTIONS;
  // Node keeps at most this many headers and drops the rest silently; one more than allowed lets
  // `refusal` see that there were too many.
  server.maxHeadersCount = MAX_HEADER_COUNT + 1;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
}

export interface Refusal {
  status: 413 | 431;
  error: string;
}

/** Why a request is refused before anything else reads it; undefined when it is within bounds. */
export function refusal(request: IncomingMessage): Refusal | undefined {
  if (request.rawHeaders.length / 2 > MAX_HEADER_COUNT) {
    return { status: 431, error: `more than ${MAX_HEADER_COUNT} request headers` };
  }
  const cookie = request.headers.cookie;
  if (cookie !== undefined && Buffer.byteLength(cookie) > MAX_COOKIE_BYTES) {
    return { status: 431, error: `cookies longer than ${MAX_COOKIE_BYTES} bytes` };
  }
  if (declaresMoreThan(request, MAX_BODY_BYTES)) return tooLarge;
  return undefined;
}

/** For a body that announced no length and passed the bound as it streamed. */
export const tooLarge: Refusal = { status: 413, error: `a request body longer than ${MAX_BODY_BYTES} bytes` };

/** The rest of the request stays unread: the connection closes once the answer is out. */
export function refuse(response: ServerResponse, reason: Refusal): void {
  if (!response.req.complete && response.socket !== null) lingerOnClose(response.socket);
  sendJson(response, reason.status, { error: reason.error }, { connection: 'close' });
}

/**
 * Node closes a connection (the socket's `destroySoon`) as soon as its last answer is written; this
 * replaces that for one connection. If the client is still sending the refused body, its next
 * bytes would meet a closed socket, the kernel would answer them with a reset, and the reset can
 * erase the answer before the client has read it: the client sees "connection reset", not 413.
 * So close in stages, as RFC 9112 (9.6) asks: end our side after the answer, keep taking bytes
 * until the client closes or LINGER_MS has passed, then close. Node's parser drops the rest of
 * the refused request and starts no other after a `Connection: close` answer.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket): void {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS).unref();
    this.once('close', () => clearTimeout(timer));
  };
}
