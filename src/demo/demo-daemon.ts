import { spawn, type ChildProcess } from 'node:child_process';
import { watch } from 'node:fs';
import path from 'node:path';
import { CONTROL_SOCKET_NAME } from '../config/locations.js';
import { callDaemon } from '../control/client.js';
import type { ControlRequest } from '../control/protocol.js';
import type { StatusReport } from '../status/status-report.js';
import { PanicPairError } from '../errors.js';

// The demo's own daemon: the real `panic-pair run` as a child process. It is ready when its
// control socket answers (the daemon listens there once its store is loaded and its sources are
// started, as it tells systemd READY=1), however long a slow machine takes; it has failed when it
// exits first. Its last log lines (stdout and stderr) are kept to say what happened.

const KEPT_LINES = 20;
/** Only for a daemon that neither answers nor exits: a hang, not a slow start. */
const HUNG_AFTER_MS = 300_000;

export interface DemoDaemon {
  readonly pid: number | undefined;
  readonly socketPath: string;
  /** Resolves once the control socket answers; rejects, with what happened, when the daemon exits first. */
  ready(): Promise<StatusReport>;
  /** A control request; a daemon gone away is reported as the demo's, not as a service to start. */
  call<T>(request: ControlRequest, options?: Parameters<typeof callDaemon>[2]): Promise<T>;
  stop(): Promise<number | null>;
}

export function startDemoDaemon(bin: string, dir: string, env: NodeJS.ProcessEnv): DemoDaemon {
  const socketPath = path.join(dir, CONTROL_SOCKET_NAME);
  const child = spawn(process.execPath, [bin, 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const keep = (chunk: Buffer): void => {
    lines.push(...chunk.toString('utf8').split('\n').filter((line) => line.trim() !== ''));
    lines.splice(0, Math.max(0, lines.length - KEPT_LINES));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const whatHappened = (headline: string): PanicPairError => {
    const tail = lines.length === 0 ? '' : `\nits last log lines:\n  ${lines.join('\n  ')}`;
    return new PanicPairError('daemon-unreachable', `${headline}${tail}`);
  };
  const exitWords = (): string =>
    child.signalCode !== null ? `was killed by ${child.signalCode}` : `exited with code ${child.exitCode}`;

  return {
    pid: child.pid,
    socketPath,
    async ready() {
      const started = performance.now();
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw whatHappened(`the demo's daemon (pid ${child.pid}) ${exitWords()} before it was ready`);
        }
        try {
          return await callDaemon<StatusReport>(socketPath, { type: 'status' });
        } catch (error) {
          if (!(error instanceof PanicPairError) || error.kind !== 'daemon-unreachable') throw error;
        }
        if (performance.now() - started > HUNG_AFTER_MS) {
          throw whatHappened(`the demo's daemon (pid ${child.pid}) is running but its control socket ${socketPath} has not answered for ${HUNG_AFTER_MS / 1000} s`);
        }
        await socketChangeOrExit(dir, exited);
      }
    },
    async call(request, options) {
      try {
        return await callDaemon(socketPath, request, options);
      } catch (error) {
        if (!(error instanceof PanicPairError) || error.kind !== 'daemon-unreachable') throw error;
        const state = child.exitCode !== null || child.signalCode !== null ? exitWords() : 'stopped answering';
        throw whatHappened(`the demo's daemon (pid ${child.pid}) ${state} during the demo (${error.message})`);
      }
    },
    stop: () => stopChild(child),
  };
}

/** Resolves at the next change in the demo's folder (the socket appearing), when the daemon exits, or after a second. */
function socketChangeOrExit(dir: string, exited: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dir, () => done());
    const timer = setTimeout(() => done(), 1_000);
    function done(): void {
      clearTimeout(timer);
      watcher.close();
      resolve();
    }
    void exited.then(done);
  });
}

function stopChild(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (code) => {
      clearTimeout(force);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}
