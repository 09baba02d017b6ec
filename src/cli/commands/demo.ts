import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDemoDaemon, type DemoDaemon } from '../../demo/demo-daemon.js';
import { startEmbeddedBroker } from '../../demo/embedded-broker.js';
import { PanicPairError } from '../../errors.js';
import type { LinkOutcome, PairProgress } from '../../pairing/types.js';
import { DEFAULT_SEED_CUSTOMER_ID, DEMO_DEPENDANT_CUSTOMER_ID, DEMO_HOUSEHOLD_SEED, startSimulator } from '../../simulator/index.js';
import type { DeviceRecord } from '../../store/record.js';
import { waitText } from '../../pairing/outage.js';

const BUTTON = 'DEMO-7F3A9C';
/** A second person's button, linked to the dependant on the hub customer's subscription. */
const DEPENDANT_BUTTON = 'DEMO-2B4D6F';
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
    // The broker first: on an install without development packages it is missing, and the demo
    // should say so before it starts anything else.
    const broker = await startEmbeddedBroker();
    cleanups.unshift(() => broker.close());
    const simulator = await startSimulator({ port: 0, token, seed: DEMO_HOUSEHOLD_SEED });
    cleanups.unshift(() => simulator.close());
    say(
      `1. panic-api v2 simulator at ${simulator.url} (customer ${DEFAULT_SEED_CUSTOMER_ID}, one active subscription with dependant ${DEMO_DEPENDANT_CUSTOMER_ID})`,
    );

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
    await pairSimulated(daemon, broker.url, BUTTON, undefined, cleanups);

    const household = await daemon.call<Array<{ customerId: number; role: string }>>({ type: 'household' });
    say(`5. the household (\`panic-pair household\`): ${household.map((member) => `${member.customerId} (${member.role})`).join(', ')}`);
    say(`   asking the daemon to pair a second button, ${DEPENDANT_BUTTON}, for the dependant (\`panic-pair pair ${DEPENDANT_BUTTON} --customer ${DEMO_DEPENDANT_CUSTOMER_ID}\`)`);
    await pairSimulated(daemon, broker.url, DEPENDANT_BUTTON, DEMO_DEPENDANT_CUSTOMER_ID, cleanups);

    const devices = await daemon.call<DeviceRecord[]>({ type: 'devices' });
    say('6. the store says:');
    for (const id of [BUTTON, DEPENDANT_BUTTON]) {
      const record = devices.find((device) => device.deviceId === id);
      say(`   ${id} ${record?.state} to customer ${record?.customerId} as link ${record?.linkId} at ${record?.linkedAt}`);
    }
    say(`   the API saw ${simulator.stats().links} link request(s) and ${simulator.stats().subscriptionGets} subscription check(s)`);

    const exit = await daemon.stop();
    say(`7. daemon stopped with SIGTERM (exit ${exit})`);
    say(`Done: both buttons are linked, each to its own customer. On a hub, \`panic-pair pair <id>\` does the same with a real button.`);
  } finally {
    for (const cleanup of cleanups) await Promise.resolve(cleanup()).catch(() => undefined);
  }
}

/** Pairs one simulated button through the control socket, as `panic-pair pair` does, saying each step. */
async function pairSimulated(
  daemon: DemoDaemon,
  brokerUrl: string,
  deviceId: string,
  customerId: number | undefined,
  cleanups: Array<() => Promise<void> | void>,
): Promise<void> {
  const button = await startSimulatedButton(brokerUrl, deviceId);
  cleanups.unshift(() => button.stop());
  const outcome = await daemon.call<LinkOutcome>(
    { type: 'pair', deviceId, timeoutMs: 30_000, ...(customerId === undefined ? {} : { customerId }) },
    { onProgress: (progress) => say(`   ${describe(progress)}`) },
  );
  if (!outcome.ok) throw new PanicPairError(outcome.kind, outcome.message);
  button.stop();
}

function describe(progress: PairProgress): string {
  switch (progress.step) {
    case 'waiting':
      return `waiting for button ${progress.deviceId}: press it now (the simulated button announces itself over MQTT)`;
    case 'checking':
      return `heard ${progress.deviceId} over ${progress.source ?? 'a source'}; checking the subscription of customer ${progress.customerId ?? DEFAULT_SEED_CUSTOMER_ID}`;
    case 'linking':
      return `customer entitled; linking ${progress.deviceId} to customer ${progress.customerId ?? DEFAULT_SEED_CUSTOMER_ID} (POST /panic-api/v2/devices)`;
    case 'retrying':
      return progress.wait ? waitText(progress.wait) : `trying ${progress.deviceId} again`;
    case 'linked':
      return `linked ${progress.deviceId}`;
  }
}

/** A button pressed every half second: an announcement on `<prefix>/announce`. */
async function startSimulatedButton(url: string, deviceId: string): Promise<{ stop(): void }> {
  const { connectAsync } = await import('../../mqtt/library.js');
  const { brokerAddress } = await import('../../mqtt/broker-address.js');
  const client = await connectAsync({ ...brokerAddress(new URL(url)), clientId: `panic-pair-demo-${deviceId}` });
  const press = (): void => void client.publish(`${PREFIX}/announce`, JSON.stringify({ deviceId, rssi: -52 }));
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
