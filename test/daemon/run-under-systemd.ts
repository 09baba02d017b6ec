import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { BIN, runCli, type CliResult } from '../cli/run-cli.js';
import { whilePressed } from '../support/pressed-button.js';

// The real daemon (bin/panic-pair.js run) started the way systemd starts it: with the directories
// and credentials systemd hands over in variables (RUNTIME_DIRECTORY, ...), which the shared
// harness in test/support does not set. `npm run build` first.

export const CUSTOMER_ID = 42;
export const PREFIX = 'panic-pair';

export interface Daemon {
  child: ChildProcess;
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Spawns `panic-pair run` with only the environment given (no PANIC_PAIR_* leaks in from the shell). */
export function startDaemon(env: Record<string, string>): Daemon {
  const child = spawn(process.execPath, [BIN, 'run'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  running.add(child);
  void exited.then(() => running.delete(child));
  return {
    child,
    pid: child.pid ?? -1,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

const running = new Set<ChildProcess>();
// A test that fails halfway must not leave daemons behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface Workspace {
  dir: string;
  simulator: Simulator;
  close(): Promise<void>;
}

export async function workspace(token: string, seed?: Parameters<typeof startSimulator>[0]['seed']): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'panic-pair-daemon-'));
  const simulator = await startSimulator({ token, ...(seed === undefined ? {} : { seed }) });
  return {
    dir,
    simulator,
    async close() {
      await simulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `panic-pair pair <id>` while the button announces itself over MQTT every 200 ms, as a real
 * button advertises, until the command ends.
 */
export async function pairWithButton(brokerUrl: string, runtimeDir: string, deviceId: string, extra: string[] = []): Promise<CliResult> {
  return whilePressed(brokerUrl, deviceId, () => runCli(['pair', deviceId, '--timeout', '20', ...extra], { runtimeDir }), PREFIX);
}
