import path from 'node:path';
import type { Config } from '../config/index.js';
import { CONTROL_SOCKET_NAME } from '../config/locations.js';
import { callDaemon } from '../control/client.js';
import type { StatusReport } from '../daemon/status-report.js';
import type { RefusedPublish } from '../mqtt/refusals.js';

const ASK_TIMEOUT_MS = 3_000;

/**
 * The publishes the running daemon saw the broker refuse, or undefined when no daemon answers.
 * `check` cannot try a publish itself: any message on the hub's topics would reach Home Assistant
 * and other subscribers (an `online` while the daemon is down, a retained state overwritten). The
 * daemon's own publishes, and the broker's answers to them, are what count.
 */
export async function publishesRefusedByBroker(config: Config): Promise<RefusedPublish[] | undefined> {
  try {
    const socket = path.join(config.runtimeDir, CONTROL_SOCKET_NAME);
    const report = await callDaemon<StatusReport>(socket, { type: 'status' }, { timeoutMs: ASK_TIMEOUT_MS });
    return report.mqttRefusals?.publishes ?? [];
  } catch {
    return undefined;
  }
}
