import type { Config } from '../config/index.js';
import { GATEWAY_SOURCE_PREFIX } from '../discovery/ble-gateway.js';
import { ZIGBEE_SOURCE } from '../discovery/zigbee2mqtt.js';
import type { Logger } from '../log/logger.js';
import type { PairingEngine } from '../pairing/engine.js';
import type { PairingStore } from '../store/index.js';
import type { DeviceRecord } from '../store/record.js';
import type { Authenticator } from '../authentication/authenticator.js';
import { Supervisor } from '../supervision/supervisor.js';
import type { DeviceRow } from '../supervision/types.js';
import { BLE_SOURCE, type BleSide } from './ble-side.js';
import type { MqttSide } from './mqtt-side.js';

// Supervision for the daemon: which sources work, read from the BLE and
// MQTT sides as they are now; the store's linked buttons and their saved last-heard times; the
// engine's new links and forgets.

export interface HearingSides {
  ble: Pick<BleSide, 'state'> | undefined;
  mqtt: Pick<MqttSide, 'state' | 'sourceLiveness'> | undefined;
}

/** Whether a source can hear now: its side works (BLE scanning, the broker connected), and a
 * gateway or Zigbee2MQTT's bridge has not said it is offline (one never heard from counts as up). */
export function sourceWorks(source: string, sides: HearingSides): boolean {
  if (source === BLE_SOURCE) return sides.ble?.state === 'scanning';
  if (sides.mqtt === undefined || sides.mqtt.state() !== 'connected') return false;
  if (source === 'mqtt') return true;
  if (source !== ZIGBEE_SOURCE && !source.startsWith(`${GATEWAY_SOURCE_PREFIX}:`)) return false;
  return sides.mqtt.sourceLiveness().find((liveness) => liveness.source === source)?.up !== false;
}

export function createSupervisor(options: {
  config: Config;
  store: PairingStore;
  engine: PairingEngine;
  sides: HearingSides;
  logger: Logger;
  counterOf?: (deviceId: string) => number | undefined;
  imitatedOf?: (deviceId: string) => boolean | undefined;
}): Supervisor {
  const { config, store, engine, sides } = options;
  const supervisor = new Supervisor({
    ...config.supervision,
    profiles: config.profiles,
    sourceUp: (source) => sourceWorks(source, sides),
    save: (section) => store.saveHeard(section),
    ...(options.counterOf === undefined ? {} : { counterOf: options.counterOf }),
    ...(options.imitatedOf === undefined ? {} : { imitatedOf: options.imitatedOf }),
    logger: options.logger,
  });
  supervisor.load(store.all(), store.heard());
  engine.onDevice((record) => supervisor.deviceChanged(record));
  engine.onForget((deviceId) => supervisor.forgotten(deviceId));
  return supervisor;
}

/** `devices` rows: each linked device with its liveness, and whether its reports are authenticated
 * (`reports` for a keyed one). */
export function deviceRows(
  records: readonly DeviceRecord[],
  supervisor: Pick<Supervisor, 'liveness'>,
  authenticator?: Pick<Authenticator, 'keyed' | 'reports'>,
): DeviceRow[] {
  return records.map((record) => deviceRow(record, supervisor, authenticator));
}

/** One device's row of `devices`. */
export function deviceRow(record: DeviceRecord, supervisor: Pick<Supervisor, 'liveness'>, authenticator?: Pick<Authenticator, 'keyed' | 'reports'>): DeviceRow {
  if (record.state !== 'linked') return { ...record };
  const liveness = supervisor.liveness(record.deviceId);
  const row: DeviceRow = liveness === undefined ? { ...record } : { ...record, ...liveness };
  if (authenticator !== undefined) {
    const reports = authenticator.reports(record.deviceId);
    row.authenticated = authenticator.keyed(record.deviceId);
    if (reports !== undefined) row.reports = reports;
  }
  return row;
}
