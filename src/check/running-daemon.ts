import path from 'node:path';
import type { Config } from '../config/index.js';
import { CONTROL_SOCKET_NAME, SYSTEMD_RUNTIME_DIR } from '../config/locations.js';
import { callDaemon } from '../control/client.js';
import type { BleState } from './ble-probe.js';
import type { RefusedPublish, StatusReport } from '../status/status-report.js';

const ASK_TIMEOUT_MS = 3_000;

// What `check` asks of a running daemon rather than find out by itself, where finding out would
// disturb it: a publish of its own would reach Home Assistant and other subscribers (an `online`
// while the daemon is down, a retained state overwritten), and opening the adapter the daemon scans
// with stops its scan ("the BLE scan was stopped by something else") and makes it restart it. An
// installer runs `check` on live hubs all the time.

/** The running daemon's status, or undefined when no daemon answers. */
export async function runningDaemonStatus(config: Config): Promise<StatusReport | undefined> {
  // The configured runtime dir first; then where the unit's daemon listens (RuntimeDirectory=),
  // which a root shell running `check` cannot learn from its own environment, as the CLI does.
  const sockets = [...new Set([config.runtimeDir, SYSTEMD_RUNTIME_DIR].map((dir) => path.join(dir, CONTROL_SOCKET_NAME)))];
  for (const socket of sockets) {
    try {
      return await callDaemon<StatusReport>(socket, { type: 'status' }, { timeoutMs: ASK_TIMEOUT_MS });
    } catch {
      // no daemon answers there
    }
  }
  return undefined;
}

/** The publishes the running daemon saw the broker refuse. */
export function refusedPublishesOf(report: StatusReport): RefusedPublish[] {
  return report.mqttRefusals?.publishes ?? [];
}

/** The adapter's state as the running daemon, which holds it, reports it. */
export function bleStateOf(report: StatusReport): BleState {
  return report.bleReason === undefined ? { state: report.ble, heldByDaemon: true } : { state: report.ble, reason: report.bleReason, heldByDaemon: true };
}
