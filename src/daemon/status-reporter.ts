import type { Authenticator } from '../authentication/authenticator.js';
import { wallClockIsUnset } from '../clock.js';
import type { Config } from '../config/index.js';
import type { PairingEngine } from '../pairing/engine.js';
import type { Counters } from '../status/counters.js';
import type { StatusReport } from '../status/status-report.js';
import { hubOnNetwork, pageAddress, type PageAddress } from '../status/page-address.js';
import type { PairingStore } from '../store/index.js';
import type { Supervisor } from '../supervision/supervisor.js';
import type { UpdateRecord } from '../update/record.js';
import { buildTime, packageVersion } from '../version.js';
import type { BleSide } from './ble-side.js';
import type { MqttSide } from './mqtt-side.js';
import { buildStatus } from './status.js';

// `status` as the running daemon answers it: each part read as it is now, at every call, beside
// the update record its caller read (update-watch.ts: afresh for a person, as last read for a sample).

export function statusReporter(parts: {
  config: Config;
  startedAt: string;
  engine: PairingEngine;
  store: PairingStore;
  ble: BleSide;
  mqtt: MqttSide | undefined;
  supervisor: Supervisor;
  authenticator: Authenticator;
  counters: Counters;
}): (update: UpdateRecord | null, page?: PageAddress | null) => StatusReport {
  const { config, engine, store, ble, mqtt, supervisor, authenticator } = parts;
  return (update, page) =>
    buildStatus({
      version: packageVersion(),
      pid: process.pid,
      startedAt: parts.startedAt,
      entitlement: engine.gate.state(),
      household: engine.gates.householdIds(),
      token: engine.health.token,
      ...(config.token === undefined ? {} : { tokenSource: config.token.kind }),
      api: engine.health.lastError === undefined ? { state: engine.health.state } : { state: engine.health.state, lastError: engine.health.lastError },
      mqtt: mqtt?.state() ?? 'off',
      ...(mqtt === undefined ? {} : { mqttDetail: mqtt.detail() }),
      ble: ble.state,
      ...(ble.reason === undefined ? {} : { bleReason: ble.reason }),
      bleAdapter: ble.adapter,
      bleRestarts: ble.restarts,
      bleLastHeardSeconds: ble.lastHeardSeconds,
      bleRequired: config.ble === 'on',
      store: { ...store.health(), path: store.file, ...writeCounts(store) },
      unsavedLinks: engine.unsavedLinks,
      devices: engine.devices(),
      buttons: supervisor.counts(),
      buttonProblems: [...supervisor.problems(), ...authenticator.problems()],
      supervision: config.supervision.on ? 'on' : 'off',
      autoPair: config.autoPair,
      ...(config.homeAssistant === undefined ? {} : { homeAssistantPrefix: config.homeAssistant.prefix }),
      page,
      ...(engine.windowOpenUntil() === undefined ? {} : { windowOpenUntil: engine.windowOpenUntil() }),
      counters: parts.counters,
      clockUnset: wallClockIsUnset(buildTime()),
      uptimeSeconds: Math.round(process.uptime()),
      update,
    });
}

/**
 * Where a phone opens the installer's page: null while it is off; the configured port until the
 * page has its own. It reads the hub's name and addresses, so only a person's `status` asks for it.
 */
export function pageOf(config: Config, port: number | undefined): PageAddress | null {
  if (config.web === undefined) return null;
  const listen = port ?? config.web.port;
  return listen === 0 ? null : pageAddress({ host: config.web.host, port: listen, https: config.web.tls !== undefined }, hubOnNetwork());
}

function writeCounts(store: PairingStore): { writes: number; fsyncs: number; bytesWritten: number } {
  const { writes, fsyncs, bytesWritten } = store.stats();
  return { writes, fsyncs, bytesWritten };
}
