import { chmod, mkdir, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { PanicPairError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { closeAfterAnswer, serveConnection, type Connection } from './connection.js';
import type { ControlHandlers } from './handlers.js';
import { encodeLine } from './protocol.js';
import { claimSocketPath } from './socket-file.js';

export type { ControlHandlers } from './handlers.js';

// The daemon's side of the control socket. Group read/write (0660) so that installers in the
// panic-pair group can use the CLI without root; systemd's RuntimeDirectory sets the group.

const SOCKET_MODE = 0o660;
/**
 * Clients served at once: an installer's CLI or two and a monitoring script need a few. One past
 * it is answered "busy" at once rather than dropped without a word.
 */
export const MAX_CONNECTIONS = 32;
/** Past this many sockets (the served and those being told "busy") the kernel's are closed unread. */
const MAX_SOCKETS = 2 * MAX_CONNECTIONS;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export interface ControlServerOptions {
  socketPath: string;
  handlers: ControlHandlers;
  logger: Logger;
  /** A client that sends no request line within this time is dropped (default 10 s). */
  requestTimeoutMs?: number;
}

export interface ControlServer {
  /** Stops accepting, ends open connections (cancelling their requests), removes the socket file. */
  close(): Promise<void>;
}

function listen(server: Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      if (error.code === 'EADDRINUSE') {
        reject(new PanicPairError('locked', `another process took the control socket ${socketPath} while the daemon started`));
      } else {
        reject(
          new PanicPairError('config', `cannot create the control socket ${socketPath} (PANIC_PAIR_RUNTIME_DIR): ${error.message}`, {
            cause: error,
          }),
        );
      }
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ path: socketPath });
  });
}

function turnAway(socket: Socket, lingerMs: number): void {
  socket.on('error', () => undefined);
  const message = `the panic-pair daemon is serving ${MAX_CONNECTIONS} clients at once; try again in a moment`;
  socket.write(encodeLine({ type: 'error', kind: 'transient', message }));
  closeAfterAnswer(socket, lingerMs);
}

async function removeSocketFile(socketPath: string): Promise<void> {
  try {
    await unlink(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const { socketPath, logger } = options;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  await mkdir(dirname(socketPath), { recursive: true });
  await claimSocketPath(socketPath);

  const connections = new Set<Connection>();
  const server = createServer((socket) => {
    if (connections.size >= MAX_CONNECTIONS) return turnAway(socket, requestTimeoutMs);
    const connection = serveConnection(socket, { handlers: options.handlers, logger, requestTimeoutMs });
    connections.add(connection);
    void connection.closed.then(() => connections.delete(connection));
  });
  server.maxConnections = MAX_SOCKETS;
  await listen(server, socketPath);
  server.on('error', (error) => logger.error({ err: error }, 'control socket error'));
  try {
    await chmod(socketPath, SOCKET_MODE);
  } catch (error) {
    server.close();
    await removeSocketFile(socketPath);
    throw new PanicPairError('config', `cannot set the mode of the control socket ${socketPath}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  logger.info({ socketPath }, 'control socket listening');

  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        const open = [...connections];
        for (const connection of open) connection.shutdown();
        await Promise.all([stopped, ...open.map((connection) => connection.closed)]);
        await removeSocketFile(socketPath);
        logger.debug({ socketPath }, 'control socket closed');
      })();
      return closing;
    },
  };
}
