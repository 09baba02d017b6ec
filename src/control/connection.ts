import type { Socket } from 'node:net';
import { PanicPairError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { PairProgress } from '../pairing/types.js';
import type { ControlHandlers } from './handlers.js';
import { encodeLine, MAX_REQUEST_BYTES, type ControlReply, type ControlRequest } from './protocol.js';
import { parseRequest } from './requests.js';

// One client on the control socket: read one request line, answer, close. Nothing a client sends
// (garbage, an endless line, silence, a disconnect mid-request) can throw out of here.

export interface ConnectionOptions {
  handlers: ControlHandlers;
  logger: Logger;
  /** A client that has not sent its request line within this time is dropped. */
  requestTimeoutMs: number;
}

export interface Connection {
  /** The daemon is stopping: cancel the request, tell the client, close. */
  shutdown(): void;
  /** Settles when the socket is closed. */
  readonly closed: Promise<void>;
}

const NEWLINE = 0x0a;

async function dispatch(
  request: ControlRequest,
  handlers: ControlHandlers,
  signal: AbortSignal,
  send: (reply: ControlReply) => void,
): Promise<unknown> {
  const onProgress = (progress: PairProgress): void => send({ type: 'progress', progress });
  switch (request.type) {
    case 'status':
      return handlers.status();
    case 'devices':
      return handlers.devices();
    case 'scan':
      return handlers.scan(request.seconds, signal);
    case 'forget':
      return handlers.forget(request.deviceId);
    case 'household':
      return handlers.household();
    case 'pair': {
      const outcome = await handlers.pair(request.deviceId, {
        timeoutMs: request.timeoutMs,
        signal,
        onProgress,
        ...(request.customerId === undefined ? {} : { customerId: request.customerId }),
        ...(request.key === undefined ? {} : { key: Buffer.from(request.key, 'hex') }),
      });
      if (!outcome.ok) throw new PanicPairError(outcome.kind, outcome.message);
      return outcome;
    }
    case 'window':
      return handlers.window(request.seconds, {
        signal,
        onProgress,
        onOutcome: (outcome) => send({ type: 'outcome', outcome }),
        onOpen: () => send({ type: 'opened' }),
        ...(request.customerId === undefined ? {} : { customerId: request.customerId }),
      });
  }
}

/**
 * The last line is out: the connection ends once it is flushed, whether or not the client closes
 * its side (one that keeps it open, or keeps sending, must not hold a slot), and at the latest
 * after `lingerMs` (one that never reads its answer neither).
 */
export function closeAfterAnswer(socket: Socket, lingerMs: number): void {
  socket.end();
  socket.once('finish', () => socket.destroy());
  const linger = setTimeout(() => socket.destroy(), lingerMs);
  socket.once('close', () => clearTimeout(linger));
}

export function serveConnection(socket: Socket, options: ConnectionOptions): Connection {
  const { logger } = options;
  const abort = new AbortController();
  let chunks: Buffer[] = [];
  let received = 0;
  let requestSeen = false;
  let answered = false;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });

  const send = (reply: ControlReply): void => {
    if (answered || socket.destroyed || !socket.writable) return;
    socket.write(encodeLine(reply));
  };
  const answer = (reply: ControlReply & { type: 'result' | 'error' }): void => {
    send(reply);
    answered = true;
    closeAfterAnswer(socket, options.requestTimeoutMs);
  };
  const refuse = (message: string): void => answer({ type: 'error', kind: 'usage', message });

  const run = async (request: ControlRequest): Promise<void> => {
    try {
      const data = await dispatch(request, options.handlers, abort.signal, send);
      answer({ type: 'result', data });
    } catch (error) {
      if (error instanceof PanicPairError) {
        logger.debug({ request: request.type, kind: error.kind }, 'control request ended in an error');
        answer({ type: 'error', kind: error.kind, message: error.message });
      } else {
        const message = error instanceof Error ? error.message : String(error);
        logger.error({ err: error, request: request.type }, 'control request failed');
        answer({ type: 'error', kind: 'failure', message });
      }
    }
  };

  const onLine = (line: string): void => {
    requestSeen = true;
    clearTimeout(deadline);
    const parsed = parseRequest(line);
    if (!parsed.ok) {
      logger.debug({ reason: parsed.message }, 'refused a malformed control request');
      refuse(parsed.message);
      return;
    }
    void run(parsed.value);
  };

  socket.on('data', (chunk: Buffer) => {
    if (requestSeen) return; // one request a connection; anything after it is ignored
    const newline = chunk.indexOf(NEWLINE);
    const take = newline === -1 ? chunk : chunk.subarray(0, newline);
    received += take.length;
    if (received > MAX_REQUEST_BYTES) {
      requestSeen = true;
      chunks = [];
      refuse(`the request line is longer than ${MAX_REQUEST_BYTES} bytes`);
      return;
    }
    chunks.push(take);
    if (newline === -1) return;
    const line = Buffer.concat(chunks).toString('utf8');
    chunks = [];
    onLine(line);
  });
  // A deadline for the whole request line, not an idle timer: a client trickling a byte at a
  // time must not hold one of the few connection slots either.
  const deadline = setTimeout(() => {
    if (requestSeen) return;
    logger.debug('dropped a control client that sent no request in time');
    socket.destroy();
  }, options.requestTimeoutMs);
  socket.on('error', (error) => {
    // EPIPE / ECONNRESET: the client went away; 'close' follows and cancels the request.
    logger.debug({ err: error }, 'control connection error');
  });
  const onGone = (): void => {
    if (!answered && !abort.signal.aborted) {
      if (requestSeen) logger.info('control client disconnected; its request is cancelled');
      abort.abort(new PanicPairError('failure', 'the client disconnected'));
    }
  };
  socket.on('end', onGone);
  socket.on('close', () => {
    clearTimeout(deadline);
    onGone();
    markClosed();
  });

  return {
    closed,
    shutdown() {
      if (!answered) {
        abort.abort(new PanicPairError('failure', 'the panic-pair daemon is stopping'));
        answer({ type: 'error', kind: 'failure', message: 'the panic-pair daemon is stopping; try again once it is back' });
      }
      // A client that does not read must not hold the daemon's shutdown.
      setTimeout(() => socket.destroy(), 1000).unref();
    },
  };
}
