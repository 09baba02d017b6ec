import { runBinary, type CliResult } from './binary.js';
import { startBroker, type TestBroker } from './broker.js';
import { startHarness, type DaemonHarness, type HarnessOptions } from './daemon-harness.js';

// A hub of a fleet as an installer sets it up: its own mosquitto with the bridge that
// `panic-pair bridge-config` printed (to a central broker), and the daemon on that broker.

/** `panic-pair bridge-config <args>` through the real binary, no config file read. */
export function bridgeConfig(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runBinary(['bridge-config', ...args], { PATH: process.env.PATH, PANIC_PAIR_CONFIG: '', ...env }, { timeoutMs: 30_000 });
}

export interface BridgedHub {
  hubId: string;
  broker: TestBroker;
  daemon: DaemonHarness;
  /** Stops the daemon, then the hub's broker. */
  close(): Promise<void>;
}

/**
 * `central.address`: one broker's, or a cluster's `URL,URL,...`; `bridgeArgs`: more flags for
 * `bridge-config` (e.g. `--central-protocol mqttv311`).
 */
export async function startBridgedHub(
  central: Pick<TestBroker, 'address'>,
  hubId: string,
  { bridgeArgs = [], ...options }: HarnessOptions & { prefix: string; bridgeArgs?: string[] },
): Promise<BridgedHub> {
  const printed = await bridgeConfig(['--central', central.address, '--hub-id', hubId, '--mqtt-prefix', options.prefix, ...bridgeArgs]);
  if (printed.code !== 0) throw new Error(`bridge-config for ${hubId} exited ${printed.code}: ${printed.stderr}`);
  const broker = await startBroker({ extraConfig: printed.stdout });
  const daemon = await startHarness({ ...options, broker }).catch(async (error: unknown) => {
    await broker.stop();
    throw error;
  });
  return {
    hubId,
    broker,
    daemon,
    async close() {
      await daemon.close();
      await broker.stop();
    },
  };
}
