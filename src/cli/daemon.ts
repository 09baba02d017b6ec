import { join } from 'node:path';
import { CONTROL_SOCKET_NAME, namedRuntimeDir } from '../config/locations.js';
import { callDaemon, type CallOptions } from '../control/client.js';
import { MAX_WAIT_SECONDS, type ControlRequest } from '../control/protocol.js';
import { PanicPairError } from '../errors.js';

// How every client command reaches the daemon: the socket path the daemon itself resolves (flag,
// then environment, then config file, then the default). When nothing names the runtime dir, a
// daemon under systemd listens in its RuntimeDirectory instead, so that place is tried next.

export interface ClientOptions {
  runtimeDir?: string;
  config?: string;
}

function isMissing(error: unknown): boolean {
  if (!(error instanceof PanicPairError) || error.kind !== 'daemon-unreachable') return false;
  const code = (error.cause as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

// A runtime dir named by the flag or the variable outranks the config file, so the resolver that
// reads one (paths.ts) is loaded only when nothing names it: `status` starts sooner.
async function socketCandidates(options: ClientOptions): Promise<string[]> {
  const named = namedRuntimeDir(options.runtimeDir, process.env);
  if (named !== undefined) return [join(named, CONTROL_SOCKET_NAME)];
  const { controlSocketCandidates } = await import('../config/paths.js');
  return controlSocketCandidates(process.env, { runtimeDir: options.runtimeDir, config: options.config });
}

export async function askDaemon<T>(options: ClientOptions, request: ControlRequest, call?: CallOptions): Promise<T> {
  const candidates = await socketCandidates(options);
  let firstMissing: unknown;
  for (const socketPath of candidates) {
    try {
      return await callDaemon<T>(socketPath, request, call);
    } catch (error) {
      if (!isMissing(error)) throw error;
      firstMissing ??= error;
    }
  }
  if (candidates.length < 2) throw firstMissing;
  throw new PanicPairError(
    'daemon-unreachable',
    `the panic-pair daemon is not running (no control socket at ${candidates.join(' or ')}). Start it: systemctl start panic-pair`,
    { cause: firstMissing },
  );
}

/** The daemon refuses longer waits; say so in the flag's own terms before asking it. */
export function checkWait(flag: string, seconds: number): void {
  if (seconds > MAX_WAIT_SECONDS) {
    throw new PanicPairError('usage', `${flag} must be at most ${MAX_WAIT_SECONDS} seconds (one day); got ${seconds}`);
  }
}
