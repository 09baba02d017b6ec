import { connect, type Socket } from 'node:net';

// A TCP client that writes exactly the bytes a test gives it, for requests no HTTP client would
// send: a body announced and never sent, thousands of headers, a request that never ends.

export interface RawConnection {
  socket: Socket;
  /** Everything the server sent, once it has closed the connection. */
  closed: Promise<string>;
  /** The first line the server sent (its status line), as soon as it has arrived. */
  statusLine: Promise<string>;
  /** The server has ended its side (its FIN has arrived). */
  ended: Promise<void>;
  /** Whether the connection closed without an error (a reset is one). */
  closedCleanly: Promise<boolean>;
}

/**
 * `halfOpen` keeps the client's side open after the server has ended its own, as a client still
 * sending its body does; otherwise the client ends its side in turn, as most do.
 */
export function openRaw(port: number, { halfOpen = false } = {}): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: halfOpen });
    let text = '';
    let gotLine: (line: string) => void = () => {};
    const statusLine = new Promise<string>((resolveLine) => (gotLine = resolveLine));
    const closed = new Promise<string>((resolveClosed) => socket.on('close', () => resolveClosed(text)));
    const closedCleanly = new Promise<boolean>((resolveClean) => socket.on('close', (hadError) => resolveClean(!hadError)));
    const ended = new Promise<void>((resolveEnded) => socket.once('end', resolveEnded));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\r\n');
      if (end !== -1) gotLine(text.slice(0, end));
    });
    // The server may close while the client still writes (EPIPE, ECONNRESET): that is its answer.
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed, statusLine, ended, closedCleanly }));
    socket.once('error', reject);
  });
}

/**
 * Resolves once the socket takes bytes again, the server has answered, or the connection has
 * closed: a server that answers and closes while the client's buffer is full sends no 'drain'.
 */
export function writableAgain(raw: RawConnection): Promise<unknown> {
  let drained: () => void = () => {};
  const drain = new Promise<void>((resolve) => raw.socket.once('drain', (drained = resolve)));
  return Promise.race([drain, raw.statusLine, raw.closed]).finally(() => raw.socket.off('drain', drained));
}

/** The status code of a whole reply (`HTTP/1.1 413 Payload Too Large...`). */
export function statusOf(reply: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0);
}
