import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { askDaemonSocket, BIN, ROOT, runBinary, type CliResult } from '../../support/binary.js';
import type { StatusReport } from '../../../src/status/status-report.js';
import { waitFor } from '../../support/wait.js';

// `panic-pair run` started by a test itself, for the cases the daemon harness does not wait
// through: a broker that is down (or refused) at start. It is ready once `status` answers,
// whatever it says.

export interface DaemonProcess {
  pid: number;
  output(): string;
  status(): Promise<{ code: number | null; report: StatusReport }>;
  cli(args: string[]): Promise<CliResult>;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, SIGKILL after 15 s. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function spawnDaemon(env: Record<string, string>): Promise<DaemonProcess> {
  const runtimeDir = env.PANIC_PAIR_RUNTIME_DIR;
  if (runtimeDir === undefined) throw new Error('spawnDaemon needs PANIC_PAIR_RUNTIME_DIR');
  const child = spawn(process.execPath, [BIN, 'run'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  const cli = (args: string[]): Promise<CliResult> => runBinary(args, { PATH: env.PATH, PANIC_PAIR_CONFIG: '', PANIC_PAIR_RUNTIME_DIR: runtimeDir });
  // Asked of the control socket, as `status --json` asks it, and its exit code: 0 healthy, 1 degraded.
  const status = async (): Promise<{ code: number | null; report: StatusReport }> => {
    const report = await askDaemonSocket<StatusReport>(runtimeDir, 'status');
    return { code: report.healthy ? 0 : 1, report };
  };
  await waitFor(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the daemon exited before it answered:\n${output}`);
      return (await status()).report.pid === child.pid;
    },
    { timeoutMs: 20_000, intervalMs: 50, what: 'the daemon to answer `status`' },
  );
  return {
    pid: child.pid!,
    output: () => output,
    status,
    cli,
    exited: () => exit,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.kill('SIGTERM');
      await exit;
      clearTimeout(force);
    },
  };
}

/** Resident set size of a process, in bytes (Linux). */
export function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}
