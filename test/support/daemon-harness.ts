import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import type { StatusReport } from '../../src/status/status-report.js';
import { startSimulator, type Seed, type Simulator } from '../../src/simulator/index.js';
import type { DeviceRecord } from '../../src/store/record.js';
import { askDaemonSocket, assertBuilt, BIN, ROOT, runBinary, type RunningCli } from './binary.js';
import { startBroker, type TestBroker } from './broker.js';
import { waitFor } from './wait.js';

// The daemon as an installer runs it: `panic-pair run` as a real child process, against the
// project's simulator (in this process, over real HTTP) and a real broker, with its own state dir
// and a token file. Every command goes through the real binary, as a user types it. What the
// harness itself polls for (`status` and `devices` while it waits for a state) it asks of the
// daemon's control socket from this process, with the client the commands use (askDaemonSocket).

export type { CliResult, RunningCli } from './binary.js';

export interface CliOptions {
  /** Added to (or, with undefined, removed from) the CLI's environment. */
  env?: Record<string, string | undefined>;
}

export interface HarnessOptions {
  /** The simulator's customers (default: 42 with one active subscription). */
  seed?: Seed;
  /** The status of a successful link (default 201). */
  linkStatus?: 200 | 201;
  /** A broker shared with other harnesses; otherwise the harness starts (and stops) its own. */
  broker?: TestBroker;
  /** Default 42. */
  customerId?: number;
  /** The daemon's topic prefix; default a random one (hubs sharing a broker never collide). */
  prefix?: string;
  /** What the token file holds; default the token the simulator accepts. */
  daemonToken?: string;
  /** More PANIC_PAIR_* settings for the daemon (undefined removes one). */
  env?: Record<string, string | undefined>;
  /** Default 'debug'. */
  logLevel?: string;
  /**
   * When the daemon counts as started: 'announcements' (default) once it hears them, 'status'
   * once `status` answers at all (a broker that refuses the daemon's login or subscriptions).
   */
  ready?: 'announcements' | 'status';
  /**
   * The node and the program that run the daemon: by default this Node and the checkout's
   * bin/panic-pair.js; a test of the Debian package gives its unpacked copy, and another Node.
   */
  daemon?: { node: string; bin: string };
}

/** Whether `host:port` accepts a TCP connection now. */
function listening(address: string): Promise<boolean> {
  const colon = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = connect({ host: address.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(address.slice(colon + 1)) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface DaemonHarness {
  simulator: Simulator;
  broker: TestBroker;
  /** The token the simulator accepts. */
  token: string;
  prefix: string;
  stateDir: string;
  runtimeDir: string;
  storeFile: string;
  /** The daemon's environment, for a test that runs `run` itself. */
  daemonEnv(): Record<string, string>;
  /** Everything the daemon wrote on stdout and stderr, across restarts. */
  output(): string;
  cli(args: string[], options?: CliOptions): RunningCli;
  /** `<command> --json`, parsed; throws with the output when stdout is not JSON. */
  cliJson<T>(args: string[]): Promise<T>;
  /** The daemon's status report, asked of its control socket (`status --json` without a node start). */
  status(): Promise<StatusReport>;
  /** The daemon's devices, asked of its control socket (`devices --json` without a node start). */
  devices<T = DeviceRecord>(): Promise<T[]>;
  /** What pairings.json holds now, read from disk. */
  storeRecords(): DeviceRecord[];
  /** Publishes on `<prefix>/announce` (QoS 1, acknowledged by the broker). */
  announce(deviceId: string, extra?: Record<string, unknown>): Promise<void>;
  /** Publishes a raw payload on `<prefix>/announce`. */
  publishRaw(payload: string | Buffer): Promise<void>;
  /** Announces, then waits until the daemon has counted the message (a status round trip). */
  announceSeen(deviceId: string, extra?: Record<string, unknown>): Promise<void>;
  kill(signal: NodeJS.Signals): void;
  /** Resolves when the current daemon process has exited. */
  exited(): Promise<Exit>;
  /** Starts the daemon again on the same state dir and waits until it answers. */
  restart(): Promise<void>;
  /** SIGTERM, then the exit. */
  stop(): Promise<Exit>;
  /**
   * An API outage: closes the simulator serving now (connections refused on its address). The
   * function returned starts a fresh one on the same address, token and customers, closed with the
   * harness. `simulator` stays the first, so what it counted is still read there.
   */
  takeApiDown(): Promise<() => Promise<Simulator>>;
  /** Stops the daemon (SIGKILL when SIGTERM is not enough), the simulator, its broker and removes the dirs. */
  close(): Promise<void>;
}

const live = new Set<ChildProcess>();
// A run that dies halfway must not leave daemons behind.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function startHarness(options: HarnessOptions = {}): Promise<DaemonHarness> {
  assertBuilt();
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-daemon-'));
  const stateDir = path.join(dir, 'state');
  const runtimeDir = path.join(dir, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  const token = randomBytes(18).toString('base64url');
  const tokenFile = path.join(dir, 'api-token');
  writeFileSync(tokenFile, `${options.daemonToken ?? token}\n`, { mode: 0o600 });
  const prefix = options.prefix ?? `pp-test-${randomBytes(4).toString('hex')}`;
  const cleanups: Array<() => Promise<unknown> | unknown> = [() => rmSync(dir, { recursive: true, force: true })];

  const simulator = await startSimulator({ token, seed: options.seed, linkStatus: options.linkStatus });
  cleanups.unshift(() => simulator.close());
  let serving = simulator;
  const takeApiDown = async (): Promise<() => Promise<Simulator>> => {
    const port = Number(new URL(simulator.url).port);
    await serving.close();
    return async () => {
      const back = await startSimulator({ port, token, seed: options.seed, linkStatus: options.linkStatus });
      cleanups.unshift(() => back.close());
      serving = back;
      return back;
    };
  };
  const broker = options.broker ?? (await startBroker());
  if (options.broker === undefined) cleanups.unshift(() => broker.stop());

  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const settings: Record<string, string | undefined> = {
    PANIC_PAIR_CONFIG: '',
    PANIC_PAIR_API_URL: simulator.url,
    PANIC_PAIR_API_TOKEN_FILE: tokenFile,
    PANIC_PAIR_CUSTOMER_ID: String(options.customerId ?? 42),
    PANIC_PAIR_STATE_DIR: stateDir,
    PANIC_PAIR_RUNTIME_DIR: runtimeDir,
    PANIC_PAIR_MQTT_URL: broker.url,
    PANIC_PAIR_MQTT_PREFIX: prefix,
    PANIC_PAIR_BLE: 'off',
    PANIC_PAIR_LOG_LEVEL: options.logLevel ?? 'debug',
    ...options.env,
  };
  for (const [key, value] of Object.entries(settings)) if (value !== undefined) env[key] = value;

  let output = '';
  let child: ChildProcess | undefined;
  let exit: Promise<Exit> = Promise.resolve({ code: null, signal: null });

  const cli = (args: string[], cliOptions: CliOptions = {}): RunningCli =>
    runBinary(args, { PATH: env.PATH, PANIC_PAIR_CONFIG: '', PANIC_PAIR_RUNTIME_DIR: runtimeDir, ...cliOptions.env });

  const cliJson = async <T>(args: string[]): Promise<T> => {
    const result = await cli([...args, '--json']);
    try {
      return JSON.parse(result.stdout) as T;
    } catch {
      throw new Error(`\`panic-pair ${args.join(' ')} --json\` exited ${result.code} without JSON: ${result.stdout}${result.stderr}`);
    }
  };

  let publisher: Promise<MqttClient> | undefined;
  const publishRaw = async (payload: string | Buffer): Promise<void> => {
    // One client for the harness; it reconnects by itself across a broker restart.
    publisher ??= connectAsync(broker.url, { reconnectPeriod: 100 });
    const client = await publisher;
    await client.publishAsync(`${prefix}/announce`, payload, { qos: 1 });
  };
  cleanups.unshift(async () => (publisher ? (await publisher).endAsync(true) : undefined));
  const announce = (deviceId: string, extra: Record<string, unknown> = {}): Promise<void> =>
    publishRaw(JSON.stringify({ deviceId, ...extra }));

  const status = (): Promise<StatusReport> => askDaemonSocket<StatusReport>(runtimeDir, 'status');

  const launch = async (): Promise<void> => {
    const started = spawn(options.daemon?.node ?? process.execPath, [options.daemon?.bin ?? BIN, 'run'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    live.add(started);
    started.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    started.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    exit = new Promise<Exit>((resolve) =>
      started.once('exit', (code, signal) => {
        live.delete(started);
        resolve({ code, signal });
      }),
    );
    const running = (): void => {
      if (started.exitCode !== null || started.signalCode !== null) {
        throw new Error(`the daemon exited (${started.exitCode ?? started.signalCode}) before it answered:\n${output}`);
      }
    };
    // status exits 1 while degraded (MQTT still connecting); its JSON still says the daemon is up.
    await waitFor(
      async () => {
        running();
        const report = await status();
        return options.ready === 'status' || report.mqtt === 'connected';
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'the daemon to answer `status` with MQTT connected' },
    );
    // The installer's page starts listening after the control socket answers: a hub with the page waits for it too.
    const page = env.PANIC_PAIR_WEB_LISTEN;
    if (page !== undefined) await waitFor(() => (running(), listening(page)), { timeoutMs: 10_000, intervalMs: 50, what: `the installer's page to listen on ${page}` });
    if (options.ready === 'status') return;
    // Connected is not yet subscribed: an invalid probe the daemon counts proves the subscription.
    await waitFor(
      async () => {
        running();
        await publishRaw('{"harness":"probe"}');
        return (await status()).counters.dropped > 0;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the daemon to receive announcements' },
    );
  };

  const kill = (signal: NodeJS.Signals): void => {
    child?.kill(signal);
  };

  const stop = async (): Promise<Exit> => {
    kill('SIGTERM');
    return exit;
  };

  await launch().catch(async (error: unknown) => {
    child?.kill('SIGKILL');
    for (const cleanup of cleanups) await Promise.resolve(cleanup()).catch(() => undefined);
    throw error;
  });

  let closed: Promise<void> | undefined;
  return {
    simulator,
    broker,
    token,
    prefix,
    stateDir,
    runtimeDir,
    storeFile: path.join(stateDir, 'pairings.json'),
    daemonEnv: () => ({ ...env }),
    output: () => output,
    cli,
    cliJson,
    status,
    devices: <T = DeviceRecord>() => askDaemonSocket<T[]>(runtimeDir, 'devices'),
    storeRecords() {
      const file = path.join(stateDir, 'pairings.json');
      if (!existsSync(file)) return [];
      return (JSON.parse(readFileSync(file, 'utf8')) as { devices: DeviceRecord[] }).devices;
    },
    announce,
    publishRaw,
    async announceSeen(deviceId, extra) {
      const before = (await status()).counters.announcements;
      await announce(deviceId, extra);
      await waitFor(async () => (await status()).counters.announcements > before, { what: `the daemon to hear ${deviceId}` });
    },
    kill,
    exited: () => exit,
    restart: launch,
    stop,
    takeApiDown,
    close() {
      closed ??= (async () => {
        const current = child;
        if (current && current.exitCode === null && current.signalCode === null) {
          const force = setTimeout(() => current.kill('SIGKILL'), 15_000);
          current.kill('SIGTERM');
          await exit;
          clearTimeout(force);
        }
        for (const cleanup of cleanups) await Promise.resolve(cleanup()).catch(() => undefined);
      })();
      return closed;
    },
  };
}

/** Reads the simulator's POST count for one device. */
export function postsFor(harness: DaemonHarness, deviceId: string): number {
  return harness.simulator.stats().postsByDevice[deviceId] ?? 0;
}
