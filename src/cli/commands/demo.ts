import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTROL_SOCKET_NAME } from '../../config/locations.js';
import { callDaemon } from '../../control/client.js';
import type { StatusReport } from '../../daemon/status-report.js';
import { startEmbeddedBroker } from '../../demo/embedded-broker.js';
import { PanicPairError } from '../../errors.js';
import type { LinkOutcome, PairProgress } from '../../pairing/types.js';
import { DEFAULT_SEED_CUSTOMER_ID, startSimulator } from '../../simulator/index.js';
import type { DeviceRecord } from '../../store/record.js';

const BUTTON = 'DEMO-7F3A9C';
const PREFIX = 'panic-pair';
const bin = fileURLToPath(new URL('../../../bin/panic-pair.js', import.meta.url));

const say = (line: string): void => void process.stdout.write(`${line}\n`);

/**
 * `panic-pair demo`: the whole job on embedded defaults, in one process tree: the API simulator,
 * an embedded MQTT broker, the real daemon as a child process, and a simulated button announcing
 * itself over MQTT. It pairs the button, prints each step, and exits 0 once it is linked.
 */
export async function demoCommand(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-demo-'));
  const token = randomBytes(18).toString('base64url');
  const cleanups: Array<() => Promise<void> | void> = [() => rmSync(dir, { recursive: true, force: true })];
  try {
    // The broker first: on an install without development packages it is missing, and the demo
    // should say so before it starts anything else.
    const broker = await startEmbeddedBroker();
    cleanups.unshift(() => broker.close());
    const simulator = await startSimulator({ port: 0, token });
    cleanups.unshift(() => simulator.close());
    say(`1. panic-api v2 simulator at ${simulator.url} (customer ${DEFAULT_SEED_CUSTOMER_ID}, one active subscription)`);
    say(`2. MQTT broker (embedded) at ${broker.url}`);

    const tokenFile = path.join(dir, 'api-token');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const env = {
      ...process.env,
      PANIC_PAIR_CONFIG: '',
      PANIC_PAIR_API_URL: simulator.url,
      PANIC_PAIR_API_TOKEN_FILE: tokenFile,
      PANIC_PAIR_API_TOKEN: '',
      PANIC_PAIR_CUSTOMER_ID: String(DEFAULT_SEED_CUSTOMER_ID),
      PANIC_PAIR_STATE_DIR: dir,
      PANIC_PAIR_RUNTIME_DIR: dir,
      PANIC_PAIR_MQTT_URL: broker.url,
      PANIC_PAIR_MQTT_PREFIX: PREFIX,
      PANIC_PAIR_BLE: 'off',
      PANIC_PAIR_LOG_LEVEL: 'warn',
    };
    const daemon = spawn(process.execPath, [bin, 'run'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    cleanups.unshift(async () => void (await stopChild(daemon)));
    const socketPath = path.join(dir, CONTROL_SOCKET_NAME);
    const status = await waitForDaemon(socketPath, daemon);
    say(`3. pairing daemon running (pid ${status.pid}), state in ${dir}`);

    say(`4. asking the daemon to pair button ${BUTTON} (as \`panic-pair pair ${BUTTON}\` does)`);
    const button = await startSimulatedButton(broker.url);
    cleanups.unshift(() => button.stop());
    const outcome = await callDaemon<LinkOutcome>(
      socketPath,
      { type: 'pair', deviceId: BUTTON, timeoutMs: 30_000 },
      { onProgress: (progress) => say(`   ${describe(progress)}`) },
    );
    if (!outcome.ok) throw new PanicPairError(outcome.kind, outcome.message);
    button.stop();

    const devices = await callDaemon<DeviceRecord[]>(socketPath, { type: 'devices' });
    const record = devices.find((device) => device.deviceId === BUTTON);
    say(`5. the store says: ${BUTTON} ${record?.state} to customer ${record?.customerId} as link ${record?.linkId} at ${record?.linkedAt}`);
    say(`   the API saw ${simulator.stats().links} link request(s) and ${simulator.stats().subscriptionGets} subscription check(s)`);

    const exit = await stopChild(daemon);
    say(`6. daemon stopped with SIGTERM (exit ${exit})`);
    say(`Done: button ${BUTTON} is linked. On a hub, \`panic-pair pair <id>\` does the same with a real button.`);
  } finally {
    for (const cleanup of cleanups) await Promise.resolve(cleanup()).catch(() => undefined);
  }
}

function describe(progress: PairProgress): string {
  switch (progress.step) {
    case 'waiting':
      return `waiting for button ${progress.deviceId}: press it now (the simulated button announces itself over MQTT)`;
    case 'checking':
      return `heard ${progress.deviceId} over ${progress.source ?? 'a source'}; checking the subscription`;
    case 'linking':
      return `customer entitled; linking ${progress.deviceId} (POST /panic-api/v2/devices)`;
    case 'linked':
      return `linked ${progress.deviceId}`;
  }
}

async function waitForDaemon(socketPath: string, daemon: ChildProcess): Promise<StatusReport> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (daemon.exitCode !== null) throw new PanicPairError('failure', `the daemon exited with code ${daemon.exitCode}`);
    try {
      return await callDaemon<StatusReport>(socketPath, { type: 'status' });
    } catch (error) {
      if (!(error instanceof PanicPairError) || error.kind !== 'daemon-unreachable' || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A button pressed every half second: an announcement on `<prefix>/announce`. */
async function startSimulatedButton(url: string): Promise<{ stop(): void }> {
  const { connectAsync } = await import('mqtt');
  const client = await connectAsync(url, { clientId: 'panic-pair-demo-button' });
  const press = (): void => void client.publish(`${PREFIX}/announce`, JSON.stringify({ deviceId: BUTTON, rssi: -52 }));
  const timer = setInterval(press, 500);
  press();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      void client.endAsync();
    },
  };
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
