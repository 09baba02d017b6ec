// The parts a benchmark runs against, each on loopback and stopped when the script ends: a
// private mosquitto, the project's API simulator, the daemon as `panic-pair run` in a child
// process, the control socket, an mqtt.js client, and the raw publisher of publisher.mjs.
import { randomBytes } from 'node:crypto';
import { openSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { accepts, freePort } from '../../test/support/loopback.mjs';
import { BIN, dist, lineChannel, median, onCleanup, ROOT, rssOf, startChild, stopChild, tempDir, until } from './lifecycle.mjs';

export const CUSTOMER_ID = 42;

/** `extraConfig`: more mosquitto.conf text, e.g. a bridge printed by `panic-pair bridge-config`. */
export async function startMosquitto({ extraConfig = '' } = {}) {
  const dir = tempDir('mosquitto');
  const port = await freePort();
  const config = path.join(dir, 'mosquitto.conf');
  const user = process.getuid?.() === 0 ? ['user root'] : [];
  writeFileSync(config, [`listener ${port} 127.0.0.1`, 'allow_anonymous true', ...user, 'persistence false',
    // mosquitto 2.0 drops QoS 0 messages to a connected subscriber beyond this queue (default
    // 1000; 0 is not "unlimited" there), which would cut a flood short instead of timing it.
    'max_queued_messages 10000000', 'log_dest stderr', 'log_type error', extraConfig].join('\n'));
  // Its stderr is not shown: as root it warns at every start, which is noise here.
  const child = startChild('mosquitto', ['-c', config], { stdio: 'ignore' });
  await until('mosquitto to accept connections', async () => {
    if (child.exitCode !== null) throw new Error(`mosquitto exited with ${child.exitCode}`);
    return accepts(port);
  }, { timeoutMs: 10_000, everyMs: 20 });
  return { url: `mqtt://127.0.0.1:${port}`, port, pid: child.pid, stop: () => stopChild(child) };
}

/**
 * The project's simulator in this process, so its stats are read directly. `requestLog` holds
 * each API request's time on the simulator's side (`ms`, from arrival to the answer sent), the
 * API's own time as the daemon could at best see it.
 */
export async function startSimulator() {
  const { startSimulator: start } = await dist('simulator/index.js');
  const token = randomBytes(18).toString('base64url');
  const requestLog = [];
  const simulator = await start({ port: 0, token, onRequest: (entry) => requestLog.push(entry) });
  onCleanup(() => simulator.close());
  return { ...simulator, token, requestLog };
}

/** Median simulator-side time of the link requests logged from `from` on. */
export function apiLinkMs(simulator, from = 0) {
  const times = simulator.requestLog.slice(from).filter((entry) => entry.path.endsWith('/devices')).map((entry) => entry.ms);
  return times.length === 0 ? NaN : median(times);
}

/**
 * `panic-pair run` as a child process with a temporary state dir; resolves once its control
 * socket answers. `env` adds or overrides variables; `nodeArgs` go before the bin.
 */
export async function startDaemon({ apiUrl, token, mqttUrl, prefix = 'bench', env = {}, nodeArgs = [], stateDir, logFile } = {}) {
  const dir = stateDir ?? tempDir('state');
  const tokenFile = path.join(dir, 'api-token');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const log = logFile ?? path.join(dir, 'daemon.log');
  // BENCH_PROFILE=1: a CPU profile of each daemon in bench/out/ (open it in Chrome's DevTools,
  // or summarise it with bench/lib/profile-summary.mjs).
  if (process.env.BENCH_PROFILE) nodeArgs = ['--cpu-prof', '--cpu-prof-dir', path.join(ROOT, 'bench', 'out'), ...nodeArgs];
  // BENCH_DAEMON_NODE_ARGS: node options for each daemon, to try a V8 setting.
  if (process.env.BENCH_DAEMON_NODE_ARGS) nodeArgs = [...process.env.BENCH_DAEMON_NODE_ARGS.split(' '), ...nodeArgs];
  const out = openSync(log, 'a');
  const child = startChild(process.execPath, [...nodeArgs, BIN, 'run'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PANIC_PAIR_CONFIG: '',
      PANIC_PAIR_API_URL: apiUrl,
      PANIC_PAIR_API_TOKEN_FILE: tokenFile,
      PANIC_PAIR_CUSTOMER_ID: String(CUSTOMER_ID),
      PANIC_PAIR_STATE_DIR: dir,
      PANIC_PAIR_RUNTIME_DIR: dir,
      PANIC_PAIR_BLE: 'off',
      ...(mqttUrl === undefined ? {} : { PANIC_PAIR_MQTT_URL: mqttUrl, PANIC_PAIR_MQTT_PREFIX: prefix }),
      ...env,
    },
    stdio: ['ignore', out, 'inherit'],
  });
  const { CONTROL_SOCKET_NAME } = await dist('config/locations.js');
  const socketPath = path.join(dir, CONTROL_SOCKET_NAME);
  const { callDaemon } = await dist('control/client.js');
  const status = () => callDaemon(socketPath, { type: 'status' }, { timeoutMs: 10_000 });
  await until('the daemon to answer on its control socket', async () => {
    if (child.exitCode !== null) throw new Error(`the daemon exited with ${child.exitCode}; see ${log}`);
    return status().then(() => true, () => false);
  }, { timeoutMs: 20_000, everyMs: 50 });
  return {
    pid: child.pid,
    child,
    dir,
    log,
    socketPath,
    status,
    /** Resolves once the daemon is connected to the broker and its customer entitled: ready to pair. */
    ready: () =>
      until('the daemon to be ready', async () => {
        const report = await status();
        return report.mqtt === 'connected' && report.entitled === true;
      }),
    call: (request, options) => callDaemon(socketPath, request, options),
    rssBytes: () => rssOf(child.pid),
    stop: () => stopChild(child),
  };
}

/**
 * A control request whose reply streams (a pairing window): each line goes to `onLine`; the
 * connection is closed by `close()`, which the daemon takes as the client going away.
 */
export function controlStream(socketPath, request, onLine) {
  const socket = net.createConnection({ path: socketPath });
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
  socket.on('data', (chunk) => {
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() !== '') onLine(JSON.parse(line));
    }
  });
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.on('error', () => undefined);
  return { close: () => (socket.destroy(), closed), closed };
}

/** An mqtt.js client in this process, for announcing and for reading retained states. */
export async function mqttClient(url) {
  const { connectAsync } = await import('mqtt');
  const client = await connectAsync(url, { clientId: `bench-${randomBytes(4).toString('hex')}`, reconnectPeriod: 0 });
  onCleanup(() => client.endAsync(true));
  return client;
}

/** The raw publisher of bench/lib/publisher.mjs, connected and ready. */
export async function startPublisher(broker) {
  const child = startChild(process.execPath, [path.join(ROOT, 'bench', 'lib', 'publisher.mjs'), '127.0.0.1', String(broker.port)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const channel = lineChannel(child);
  await channel.next('ready', 10_000);
  return {
    pid: child.pid,
    async prepare(topic, count, idPrefix) {
      channel.send(`prepare ${topic} ${count} ${idPrefix}`);
      await channel.next('prepared');
    },
    /** Sends what was prepared; resolves with the time the writes took (ms). */
    async go() {
      channel.send('go');
      return Number((await channel.next('sent')).split(' ')[1]);
    },
    stop: () => (channel.send('quit'), stopChild(child)),
  };
}
