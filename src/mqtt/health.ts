import type { HealthPayload } from './topics.js';
import type { StatusReport } from '../status/status-report.js';

/** `<prefix>/health` before its stamp: what the publisher compares and publishes. */
export type HealthReading = Omit<HealthPayload, 'at'>;

// One derivation: the health a central broker sees is the status `panic-pair status --json` prints
// on the hub, cut to what a fleet view needs. `healthy` and `problems` are status's own, so the hub
// and the fleet never disagree about why a hub is degraded.
export function healthOf(report: StatusReport): HealthReading {
  return {
    version: report.version,
    healthy: report.healthy,
    problems: report.problems,
    ble: report.ble,
    mqtt: report.mqtt,
    devices: report.devices,
    buttons: report.buttons,
    uptimeSeconds: report.uptimeSeconds ?? 0,
    update: report.update ?? null,
  };
}
