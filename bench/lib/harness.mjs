// What every benchmark script shares: a private mosquitto on a free loopback port, the API
// simulator, the daemon as a child process with its own temporary state dir, the control socket,
// and the one-line result format that bench/run.mjs collects. Loopback only; everything a script
// starts is stopped when it ends, even when it fails.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'panic-pair.js');
export const CUSTOMER_ID = 42;
/** What bench/run.mjs looks for at the start of a line of a script's stdout. */
export const RESULT_MARK = 'BENCH_RESULT ';

const children = new Set();
const cleanups = [];

/** Imports a compiled module of the project (npm run bench builds first). */
export function dist(modulePath) {
  return import(pathToFileURL(path.join(ROOT, 'dist', modulePath)).href);
}

export function tempDir(name) {
  const dir = mkdtempSync(path.join(tmpdir(), `panic-pair-bench-${name}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Polls `check` until it returns something other than undefined/false, or throws at the bound. */
export async function until(what, check, { timeoutMs = 30_000, everyMs = 10 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * One figure, printed for bench/run.mjs. `target` is `{ op: '<=' | '>=', value }`, or undefined
 * for a figure that informs without a target; `checks` are conditions the figure depends on
 * (exact request counts and the like): any false one fails the figure.
 */
export function report({ figure, ratio, target, detail, checks = {} }) {
  const failedChecks = Object.entries(checks).filter(([, ok]) => !ok).map(([name]) => name);
  let pass;
  if (target !== undefined) {
    const meets = target.op === '<=' ? ratio <= target.value : ratio >= target.value;
    pass = meets && failedChecks.length === 0;
  } else {
    pass = failedChecks.length === 0 ? null : false;
  }
  const line = { figure, ratio, target, pass, detail, failedChecks };
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(line)}\n`);
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts a child that is killed when this script ends, however it ends. */
export function startChild(command, args, options = {}) {
  const child = spawn(command, args, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function stopChild(child, { signal = 'SIGTERM', timeoutMs = 15_000 } = {}) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(force);
      resolve(code);
    });
    child.kill(signal);
  });
}

export async function startMosquitto() {
  const dir = tempDir('mosquitto');
  const port = await freePort();
  const config = path.join(dir, 'mosquitto.conf');
  const user = process.getuid?.() === 0 ? ['user root'] : [];
  writeFileSync(config, [`listener ${port} 127.0.0.1`, 'allow_anonymous true', ...user, 'persistence false',
    // mosquitto 2.0 drops QoS 0 messages to a connected subscriber beyond this queue (default
    // 1000; 0 is not "unlimited" there), which would cut a flood short instead of timing it.
    'max_queued_messages 10000000', 'log_dest stderr', 'log_type error', ''].join('\n'));
  // Its stderr is not shown: as root it warns at every start, which is noise here.
  const child = startChild('mosquitto', ['-c', config], { stdio: 'ignore' });
  await until('mosquitto to accept connections', async () => {
    if (child.exitCode !== null) throw new Error(`mosquitto exited with ${child.exitCode}`);
    return accepts(port);
  }, { timeoutMs: 10_000, everyMs: 20 });
  return { url: `mqtt://127.0.0.1:${port}`, port, pid: child.pid, stop: () => stopChild(child) };
}

/** The project's simulator in this process, so its stats are read directly. */
export async function startSimulator() {
  const { startSimulator: start } = await dist('simulator/index.js');
  const token = randomBytes(18).toString('base64url');
  const simulator = await start({ port: 0, token });
  cleanups.push(() => simulator.close());
  return { ...simulator, token };
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
  const { openSync } = await import('node:fs');
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
    call: (request, options) => callDaemon(socketPath, request, options),
    rssBytes: () => rssOf(child.pid),
    stop: () => stopChild(child),
  };
}

/** Resident set size of a process, from /proc (Linux). */
export function rssOf(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(text)?.[1]);
  return kb * 1024;
}

/** User plus system CPU time of a process so far, in milliseconds, from /proc (Linux). */
export function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat(5), 12 and 13 here after the command name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
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
  cleanups.push(() => client.endAsync(true));
  return client;
}

export async function cleanup() {
  while (cleanups.length > 0) {
    const step = cleanups.pop();
    await Promise.resolve()
      .then(step)
      .catch(() => undefined);
  }
  await Promise.all([...children].map((child) => stopChild(child, { timeoutMs: 5_000 })));
}

/** Runs a benchmark body with cleanup, an overall bound, and a non-zero exit on failure. */
export async function runBench(name, body, { timeoutMs = 240_000 } = {}) {
  const bound = setTimeout(() => {
    process.stderr.write(`${name}: gave up after ${timeoutMs / 1000} s\n`);
    void cleanup().finally(() => process.exit(1));
  }, timeoutMs);
  bound.unref();
  process.once('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
  try {
    await body();
  } catch (error) {
    process.stderr.write(`${name}: ${error?.stack ?? error}\n`);
    process.exitCode = 1;
  } finally {
    clearTimeout(bound);
    await cleanup();
  }
}

export function mb(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Talks to a helper child over lines: `send(line)`, and `next(word)` for its next answer starting with that word. */
export function lineChannel(child) {
  const waiting = [];
  const seen = [];
  let buffer = '';
  let exited;
  child.once('exit', (code) => {
    exited = `a helper exited (${code})`;
    for (const w of waiting.splice(0)) w.reject(new Error(`${exited} before "${w.word}"`));
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      const index = waiting.findIndex((w) => line.startsWith(w.word));
      if (index === -1) seen.push(line);
      else waiting.splice(index, 1)[0].resolve(line);
    }
  });
  return {
    send: (line) => child.stdin.write(`${line}\n`),
    next(word, timeoutMs = 120_000) {
      const index = seen.findIndex((line) => line.startsWith(word));
      if (index !== -1) return Promise.resolve(seen.splice(index, 1)[0]);
      if (exited !== undefined) return Promise.reject(new Error(`${exited} before "${word}"`));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${word}" from a helper within ${timeoutMs} ms`)), timeoutMs);
        waiting.push({ word, resolve: (line) => (clearTimeout(timer), resolve(line)), reject: (error) => (clearTimeout(timer), reject(error)) });
      });
    },
  };
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
