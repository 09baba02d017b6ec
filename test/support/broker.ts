import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { accessLines, type BrokerAccess } from './broker-access.js';
import { findExecutable } from './installed.js';
import { makeCertificates, type TestCertificates } from './test-ca.js';
import { accepts, freePort } from './loopback.mjs';

// A real MQTT broker for one test file: mosquitto on 127.0.0.1 with a free port, or, where
// mosquitto is not installed, an embedded aedes broker (and a plain notice saying so).

export interface TestBroker {
  /** What tests publish and observe with: with `observer`'s credentials when given. */
  url: string;
  /** The broker's address without credentials (mqtts:// with `tls`): what the daemon is given. */
  address: string;
  port: number;
  /** With `tls`: the CA that signed the broker's certificate. */
  caFile?: string;
  kind: 'mosquitto' | 'embedded';
  stop(): Promise<void>;
  /** Stops the broker and starts a fresh one on the same port (retained messages are lost). */
  restart(): Promise<void>;
  /**
   * mosquitto only: writes its configuration again from the (changed) options and sends SIGHUP,
   * which makes it read its password and acl files again without dropping a client.
   */
  reload(): void;
}

export interface BrokerOptions extends BrokerAccess {
  /** A user of `users` whose credentials `url` carries (tests publish and observe as that user). */
  observer?: string;
  /** A TLS listener (mosquitto only), its certificate signed by a CA made for it, for these names. */
  tls?: { names: string[] };
  /** 'embedded': aedes even where mosquitto is installed (it speaks MQTT 3.1.1 only). */
  kind?: 'embedded';
  /** mosquitto only: more mosquitto.conf text, e.g. a bridge printed by `panic-pair bridge-config`. */
  extraConfig?: string;
  /** Embedded only: topic filters whose subscription it refuses (SUBACK 0x80, as 3.1.1 brokers do). */
  refuseSubscriptions?: string[];
}

const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
const running = new Set<ChildProcess>();
let warnedEmbedded = false;

export async function startBroker(options: BrokerOptions = {}): Promise<TestBroker> {
  // PANIC_PAIR_TEST_BROKER=embedded forces the fallback, to check it on a machine with mosquitto.
  const forced = process.env.PANIC_PAIR_TEST_BROKER === 'embedded' || options.kind === 'embedded';
  const mosquitto = forced ? undefined : findExecutable('mosquitto');
  if (mosquitto !== undefined) return startMosquitto(mosquitto, options);
  if (options.kind === 'embedded') return startEmbedded(options);
  if (options.tls !== undefined || options.acl !== undefined || options.dynsec !== undefined || options.extraConfig !== undefined) {
    throw new Error('mosquitto not found: a broker with TLS, an ACL, dynamic security or a bridge needs it (apt-get install mosquitto)');
  }
  if (!warnedEmbedded) {
    warnedEmbedded = true;
    process.stderr.write(forced ? 'PANIC_PAIR_TEST_BROKER=embedded: the MQTT tests run against an embedded broker\n' : 'mosquitto not found: the MQTT tests run against an embedded broker\n');
  }
  return startEmbedded(options);
}

async function startMosquitto(binary: string, options: BrokerOptions): Promise<TestBroker> {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-mosquitto-'));
  const certificates: TestCertificates | undefined = options.tls === undefined ? undefined : makeCertificates(dir, options.tls.names);
  const tls = certificates === undefined ? [] : [`cafile ${certificates.caFile}`, `certfile ${certificates.certFile}`, `keyfile ${certificates.keyFile}`];
  // Written at each launch, so restart() also works after stop() (a test of "broker down at start").
  const writeConfig = (port: number): string => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const access = accessLines(dir, options);
    const configFile = path.join(dir, 'mosquitto.conf');
    // Started as root, mosquitto drops to its own user before reading the (private) password file.
    const user = process.getuid?.() === 0 ? ['user root'] : [];
    writeFileSync(configFile, [`listener ${port} 127.0.0.1`, ...tls, ...user, ...access, 'persistence false', 'log_dest stderr', 'log_type error', 'log_type warning', options.extraConfig ?? ''].join('\n'));
    return configFile;
  };
  const launchOn = (port: number): Promise<ChildProcess> => launchMosquitto(binary, writeConfig(port), port);
  let port = 0;
  let current: ChildProcess | undefined;
  // Another process may take the free port between probing and mosquitto binding it: try again.
  for (let tries = 0; current === undefined; tries++) {
    port = await freePort();
    try {
      current = await launchOn(port);
    } catch (error) {
      if (tries >= 2) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  const stopProcess = async (): Promise<void> => {
    if (current) await killChild(current);
    current = undefined;
  };
  const address = `${certificates === undefined ? 'mqtt' : 'mqtts'}://127.0.0.1:${port}`;
  return {
    url: urlFor(address, options),
    address,
    port,
    ...(certificates === undefined ? {} : { caFile: certificates.caFile }),
    kind: 'mosquitto',
    async stop() {
      await stopProcess();
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await stopProcess();
      current = await launchOn(port);
    },
    reload() {
      writeConfig(port);
      current?.kill('SIGHUP');
    },
  };
}

/** The address with the observer's credentials, when there is one. */
function urlFor(address: string, options: BrokerOptions): string {
  if (options.observer === undefined) return address;
  const url = new URL(address);
  url.username = options.observer;
  url.password = options.users?.[options.observer] ?? '';
  return url.toString().replace(/\/$/, '');
}

async function launchMosquitto(binary: string, configFile: string, port: number): Promise<ChildProcess> {
  const child = spawn(binary, ['-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  let output = '';
  let exit: string | undefined;
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-2_000);
  });
  child.once('error', (error) => {
    exit = error.message;
  });
  child.once('exit', (code, signal) => {
    running.delete(child);
    exit = `exited with ${signal ?? code}`;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await accepts(port))) {
    if (exit !== undefined || Date.now() > deadline) {
      if (exit === undefined) await killChild(child);
      throw new Error(`mosquitto did not start on 127.0.0.1:${port} (${exit ?? 'no answer in time'}): ${output.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

// A test run that dies halfway must not leave brokers behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

async function startEmbedded(options: BrokerOptions): Promise<TestBroker> {
  let broker: EmbeddedBroker | undefined = await launchEmbedded(0, options);
  const port = broker.port;
  const stop = async (): Promise<void> => {
    await broker?.close();
    broker = undefined;
  };
  const address = `mqtt://127.0.0.1:${port}`;
  return {
    url: urlFor(address, options),
    address,
    port,
    kind: 'embedded',
    stop,
    async restart() {
      await stop();
      broker = await launchEmbedded(port, options);
    },
    reload() {
      throw new Error('the embedded broker cannot reload its configuration');
    },
  };
}

interface EmbeddedBroker {
  port: number;
  close(): Promise<void>;
}

async function launchEmbedded(port: number, options: BrokerOptions): Promise<EmbeddedBroker> {
  // Loaded only here: aedes is the fallback, and ESM-only.
  const { Aedes } = await import('aedes');
  const aedes = await Aedes.createBroker();
  const users = options.users;
  const refused = new Set(options.refuseSubscriptions ?? []);
  aedes.authorizeSubscribe = (_client, subscription, done) => done(null, refused.has(subscription.topic) ? null : subscription);
  if (users) {
    aedes.authenticate = (_client, username, password, done) => {
      const known = username !== undefined && Object.hasOwn(users, username);
      done(null, known && password?.toString() === users[username]);
    };
  }
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    aedes.handle(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
}
