import { randomBytes } from 'node:crypto';
import { PanicPairError } from '../../errors.js';
import { loadSeed, startSimulator, type Seed, type SimulatorLogEntry } from '../../simulator/index.js';

export interface SimulatorCommandOptions {
  port?: string;
  token?: string;
  seed?: string;
  host?: string;
}

/** What the command touches outside itself; tests pass their own. */
export interface SimulatorCommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Stops the simulator as SIGINT/SIGTERM do. */
  stop?: AbortSignal;
}

const defaultIo: SimulatorCommandIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = /^\d{1,5}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new PanicPairError('usage', `--port must be an integer from 0 to 65535 (0 picks a free port), not "${text}"`);
  }
  return port;
}

function logLine(entry: SimulatorLogEntry): string {
  const fault = entry.fault ? ` [fault: ${entry.fault}]` : '';
  return `${entry.method} ${entry.path} ${entry.status} ${entry.ms} ms${fault}\n`;
}

function waitForStop(stop: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    const finish = (why: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      stop?.removeEventListener('abort', onAbort);
      resolve(why);
    };
    const onInt = (): void => finish('SIGINT');
    const onTerm = (): void => finish('SIGTERM');
    const onAbort = (): void => finish('stop');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    if (stop?.aborted) return finish('stop');
    stop?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `panic-pair simulator`: the panic-api v2 simulator in the foreground. The first stdout line is the
 * base address, so a script can read it; requests are logged on stderr. Resolves once stopped.
 */
export async function runSimulatorCommand(options: SimulatorCommandOptions, io: SimulatorCommandIo = defaultIo): Promise<void> {
  const port = parsePort(options.port);
  let seed: Seed | undefined;
  if (options.seed !== undefined) seed = await loadSeed(options.seed);

  let token = options.token;
  let tokenSource = '--token';
  if (token === undefined && io.env.PANIC_PAIR_API_TOKEN) {
    token = io.env.PANIC_PAIR_API_TOKEN;
    tokenSource = 'PANIC_PAIR_API_TOKEN';
  }
  if (token !== undefined && token.trim() === '') throw new PanicPairError('usage', '--token must not be empty');
  if (token === undefined) {
    // A simulator guards nothing: a generated token is shown so a developer can copy it.
    token = randomBytes(18).toString('base64url');
    tokenSource = 'a generated token (printed on stderr)';
    io.stderr.write(`simulator token: ${token}\n`);
  }

  const simulator = await startSimulator({
    ...(options.host === undefined ? {} : { host: options.host }),
    port,
    token,
    ...(seed === undefined ? {} : { seed }),
    onRequest: (entry) => io.stderr.write(logLine(entry)),
  });
  // Listen for signals before announcing the address: a script may stop us as soon as it reads it.
  const stopped = waitForStop(io.stop);
  const customers = simulator.customerIds;
  io.stdout.write(`${simulator.url}\n`);
  io.stdout.write(
    `panic-api v2 simulator: ${customers.length} customer(s) (${customers.join(', ') || 'none'}) from ${options.seed ?? 'the built-in seed'}; ` +
      `token from ${tokenSource}; test controls under ${simulator.url}/__simulator/\n`,
  );
  const why = await stopped;
  io.stderr.write(`simulator stopping (${why})\n`);
  await simulator.close();
}
