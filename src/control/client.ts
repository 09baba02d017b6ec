import { createConnection } from 'node:net';
import { PanicPairError } from '../errors.js';
import type { LinkOutcome, PairProgress } from '../pairing/types.js';
import { encodeLine, parseReply, type ControlRequest } from './protocol.js';

// The CLI's side of the control socket. Imports nothing heavy (no zod, pino, mqtt, got), so
// `panic-pair status` on a Raspberry Pi starts in the time node itself takes.

export interface CallOptions {
  /** The daemon accepted the connection; the request is on its way. */
  onConnect?(): void;
  onProgress?(progress: PairProgress): void;
  onOutcome?(outcome: LinkOutcome): void;
  /** The window asked for is open (a refused one never is). */
  onOpened?(): void;
  /** Give up (kind 'timeout') when no final line arrived in this time. */
  timeoutMs?: number;
}

function unreachable(socketPath: string, error: NodeJS.ErrnoException): PanicPairError {
  switch (error.code) {
    case 'ENOENT':
    case 'ECONNREFUSED':
    case 'ENOTDIR':
      return new PanicPairError(
        'daemon-unreachable',
        `the panic-pair daemon is not running (no control socket at ${socketPath}). Start it: systemctl start panic-pair`,
        { cause: error },
      );
    case 'EACCES':
    case 'EPERM':
      return new PanicPairError(
        'daemon-unreachable',
        `permission denied on ${socketPath}: run as root or as a member of the panic-pair group (usermod -aG panic-pair $USER)`,
        { cause: error },
      );
    default:
      return new PanicPairError('daemon-unreachable', `cannot reach the panic-pair daemon at ${socketPath}: ${error.message}`, {
        cause: error,
      });
  }
}

export async function callDaemon<T>(socketPath: string, request: ControlRequest, options: CallOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const socket = createConnection({ path: socketPath });
    let connected = false;
    let settled = false;
    let pending = '';
    let timer: NodeJS.Timeout | undefined;

    const finish = (error: Error | undefined, data?: unknown): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(data as T);
    };

    if (options.timeoutMs !== undefined) {
      const seconds = Math.round(options.timeoutMs / 1000);
      timer = setTimeout(() => {
        finish(
          new PanicPairError(
            'timeout',
            `no answer from the panic-pair daemon within ${seconds} s (it may still be working: see \`panic-pair devices\`)`,
          ),
        );
      }, options.timeoutMs);
    }

    // A handler that throws must not leave the socket open or the promise hanging.
    const deliver = (line: string): void => {
      const reply = parseReply(line);
      if (!reply) {
        finish(new PanicPairError('failure', 'the panic-pair daemon sent a reply this client cannot read (is it the same version?)'));
        return;
      }
      try {
        if (reply.type === 'progress') options.onProgress?.(reply.progress);
        else if (reply.type === 'outcome') options.onOutcome?.(reply.outcome);
        else if (reply.type === 'opened') options.onOpened?.();
        else if (reply.type === 'result') finish(undefined, reply.data);
        else finish(new PanicPairError(reply.kind, reply.message));
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
      }
    };

    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      socket.write(encodeLine(request));
      try {
        options.onConnect?.();
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
      }
    });
    socket.on('data', (chunk: string) => {
      pending += chunk;
      let newline = pending.indexOf('\n');
      while (newline !== -1 && !settled) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line.trim() !== '') deliver(line);
        newline = pending.indexOf('\n');
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected) finish(unreachable(socketPath, error));
      else finish(new PanicPairError('failure', `the connection to the panic-pair daemon failed: ${error.message}`, { cause: error }));
    });
    socket.on('close', () => {
      finish(new PanicPairError('failure', 'the panic-pair daemon closed the connection without an answer (see its log: journalctl -u panic-pair)'));
    });
  });
}
