// Pairing through the real daemon, as an installer would: a window opened on the control socket
// (what `panic-pair pair --window` does), buttons announced over MQTT, outcomes read as they come.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { controlStream, CUSTOMER_ID, mqttClient, until } from './harness.mjs';

/** Opens a pairing window and resolves once the daemon says it is open. */
export async function openWindow(daemon, seconds) {
  const outcomes = [];
  const waiters = [];
  let report;
  const stream = controlStream(daemon.socketPath, { type: 'window', seconds }, (line) => {
    if (line.type === 'outcome') {
      outcomes.push({ ...line.outcome, receivedAt: performance.now() });
      for (const waiter of [...waiters]) waiter();
    } else if (line.type === 'result') {
      report = line.data;
    } else if (line.type === 'error') {
      report = { error: line.message };
    }
  });
  await until('the pairing window to open', async () => (await daemon.status()).windowOpenUntil !== undefined, { everyMs: 5 });
  return {
    outcomes,
    report: () => report,
    /** Resolves once `n` outcomes arrived (linked or not); rejects after `timeoutMs`. */
    waitForOutcomes(n, timeoutMs = 60_000) {
      if (outcomes.length >= n) return Promise.resolve(outcomes);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${outcomes.length} of ${n} outcomes within ${timeoutMs} ms`)), timeoutMs);
        const waiter = () => {
          if (outcomes.length < n) return;
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(waiter), 1);
          resolve(outcomes);
        };
        waiters.push(waiter);
      });
    },
    close: () => stream.close(),
  };
}

/** Distinct button ids for one run. */
export function buttonIds(prefix, count) {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);
}

/** Publishes one announcement per id, as fast as the client takes them. */
export async function announce(client, prefix, ids) {
  for (const deviceId of ids) client.publish(`${prefix}/announce`, JSON.stringify({ deviceId, rssi: -50 }));
}

export { mqttClient };

/** A store of `count` linked devices, written where the daemon will find it, as the daemon writes it. */
export function seedStore(stateDir, count) {
  const at = new Date().toISOString();
  const devices = Array.from({ length: count }, (_, i) => ({
    deviceId: `STORED-${String(i).padStart(6, '0')}`,
    state: 'linked',
    customerId: CUSTOMER_ID,
    source: 'mqtt',
    linkId: 1_000_000 + i,
    linkedAt: at,
    updatedAt: at,
  }));
  const lines = devices.map((device) => JSON.stringify(device));
  const text = `{\n  "schemaVersion": 1,\n  "devices": [\n    ${lines.join(',\n    ')}\n  ]\n}\n`;
  writeFileSync(path.join(stateDir, 'pairings.json'), text, { mode: 0o600 });
}
