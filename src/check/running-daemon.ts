import path from 'node:path';
import type { Config } from '../config/index.js';
import { CONTROL_SOCKET_NAME, SYSTEMD_RUNTIME_DIR } from '../config/locations.js';
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
  // The configured runtime dir first; then where the unit's daemon listens (RuntimeDirectory=),
  // which a root shell running `check` cannot learn from its own environment, as the CLI does.
  const sockets = [...new Set([config.runtimeDir, SYSTEMD_RUNTIME_DIR].map((dir) => path.join(dir, CONTROL_SOCKET_NAME)))];
  for (const socket of sockets) {
    try {
      const report = await callDaemon<StatusReport>(socket, { type: 'status' }, { timeoutMs: ASK_TIMEOUT_MS });
      return report.mqttRefusals?.publishes ?? [];
    } catch {
      // no daemon answers there
    }
  }
  return undefined;
}
