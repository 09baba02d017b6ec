import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDemoDaemon } from '../../demo/demo-daemon.js';
import { startEmbeddedBroker } from '../../demo/embedded-broker.js';
import { PanicPairError } from '../../errors.js';
import type { LinkOutcome, PairProgress } from '../../pairing/types.js';
import { DEFAULT_SEED_CUSTOMER_ID, startSimulator } from '../../simulator/index.js';
import type { DeviceRecord } from '../../store/record.js';

const BUTTON = 'DEMO-7F3A9C';
const PREFIX = 'panic-pair';
/** The CLI being run (bin/panic-pair.js, or the package's /usr/bin/panic-pair): the daemon is the same program. */
const bin = (): string => process.argv[1] ?? 'panic-pair';

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
    const simulator = await startSimulator({ port: 0, token });
    cleanups.unshift(() => simulator.close());
    say(`1. panic-api v2 simulator at ${simulator.url} (customer ${DEFAULT_SEED_CUSTOMER_ID}, one active subscription)`);

    const broker = await startEmbeddedBroker();
    cleanups.unshift(() => broker.close());
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
    const daemon = startDemoDaemon(bin(), dir, env);
    cleanups.unshift(async () => void (await daemon.stop()));
    const status = await daemon.ready();
    say(`3. pairing daemon running (pid ${status.pid}), state in ${dir}`);

    say(`4. asking the daemon to pair button ${BUTTON} (as \`panic-pair pair ${BUTTON}\` does)`);
    const button = await startSimulatedButton(broker.url);
    cleanups.unshift(() => button.stop());
    const outcome = await daemon.call<LinkOutcome>(
      { type: 'pair', deviceId: BUTTON, timeoutMs: 30_000 },
      { onProgress: (progress) => say(`   ${describe(progress)}`) },
    );
    if (!outcome.ok) throw new PanicPairError(outcome.kind, outcome.message);
    button.stop();

    const devices = await daemon.call<DeviceRecord[]>({ type: 'devices' });
    const record = devices.find((device) => device.deviceId === BUTTON);
    say(`5. the store says: ${BUTTON} ${record?.state} to customer ${record?.customerId} as link ${record?.linkId} at ${record?.linkedAt}`);
    say(`   the API saw ${simulator.stats().links} link request(s) and ${simulator.stats().subscriptionGets} subscription check(s)`);

    const exit = await daemon.stop();
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

/** A button pressed every half second: an announcement on `<prefix>/announce`. */
async function startSimulatedButton(url: string): Promise<{ stop(): void }> {
  const { connectAsync } = await import('../../mqtt/library.js');
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
