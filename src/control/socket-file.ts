import { lstat, unlink } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { PanicPairError } from '../errors.js';

// A daemon killed with SIGKILL or by a power cut leaves its socket file behind, and listen() on
// that path fails. The file is removed only once a connect to it is refused: if a daemon answers
// there, two daemons would fight over the store, so start-up stops instead.

const PROBE_TIMEOUT_MS = 2000;

type Probe = 'alive' | 'stale' | 'gone';

function probe(socketPath: string): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path: socketPath });
    const done = (result: Probe | Error): void => {
      socket.destroy();
      clearTimeout(timer);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    // A daemon too busy to accept within the bound is still a daemon.
    const timer = setTimeout(() => done('alive'), PROBE_TIMEOUT_MS);
    socket.on('connect', () => done('alive'));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') done('stale');
      else if (error.code === 'ENOENT') done('gone');
      else done(new PanicPairError('failure', `cannot check the control socket at ${socketPath}: ${error.message}`, { cause: error }));
    });
  });
}

/** Makes `socketPath` free to listen on, or throws ('locked' when a daemon answers there). */
export async function claimSocketPath(socketPath: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(socketPath)).isSocket();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!isSocket) {
    throw new PanicPairError(
      'config',
      `${socketPath} exists and is not a socket; remove it or point PANIC_PAIR_RUNTIME_DIR elsewhere`,
    );
  }
  const state = await probe(socketPath);
  if (state === 'alive') {
    throw new PanicPairError(
      'locked',
      `another panic-pair daemon is answering on ${socketPath}; stop it first (systemctl stop panic-pair)`,
    );
  }
  if (state === 'stale') {
    try {
      await unlink(socketPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
