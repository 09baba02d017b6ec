import { spawn, type ChildProcess } from 'node:child_process';
import type { HubRow } from '../../src/fleet/hub-row.js';
import { BIN, runBinary, type CliResult } from './binary.js';

// `panic-pair fleet` through the real binary, as an operator or a monitoring system runs it:
// once, or `--watch --json` left running, its rows read line by line as they come.

const ENV = { PATH: process.env.PATH, PANIC_PAIR_CONFIG: '' };

export function fleet(args: string[]): Promise<CliResult> {
  return runBinary(['fleet', ...args], ENV, { timeoutMs: 90_000 });
}

export type WatchedRow = HubRow & { at: string };

export interface FleetWatch {
  child: ChildProcess;
  /** Every row printed so far, in order. */
  rows(): WatchedRow[];
  stderr(): string;
  /** SIGINT (or `signal`), then the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function watchFleet(args: string[]): FleetWatch {
  const child = spawn(process.execPath, [BIN, 'fleet', ...args, '--watch', '--json'], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    rows: () => stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as WatchedRow),
    stderr: () => stderr,
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
