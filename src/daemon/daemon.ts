import path from 'node:path';
import { createApiClient, type ApiClient } from '../api/index.js';
import type { Config } from '../config/index.js';
import { startControlServer } from '../control/server.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { PairingEngine } from '../pairing/engine.js';
import { PairingStore } from '../store/index.js';
import { apiBase } from '../api/base-url.js';
import { buildTime, packageVersion } from '../version.js';
import { wallClockIsUnset } from '../clock.js';
import { createCounters, type Counters } from '../status/counters.js';
import { startMqttSide, type MqttSide } from './mqtt-side.js';
import { buildStatus } from './status.js';
import { healthOf } from '../mqtt/health.js';
import type { StatusReport } from '../status/status-report.js';
import { TokenHolder } from './token-holder.js';
import { startBleSide } from './ble-side.js';
import { guardPairing, guardWindow, type Hearing } from './hearing-guard.js';
import { CONTROL_SOCKET_NAME } from '../config/locations.js';
import { readWebSecrets } from '../config/web.js';
import type { ControlHandlers } from '../control/handlers.js';
import { startWebSide } from './web-side.js';
import { createSupervisor, deviceRows, type HearingSides } from './supervision-side.js';
import type { Sighting } from '../discovery/sighting.js';
import type { Authenticator } from '../authentication/authenticator.js';
import { readKeysFile } from '../config/button-keys.js';
import { ButtonKeyStore } from '../store/button-key-store.js';
import { createAuthenticator, pairingWithKeys } from './authentication-side.js';

export interface RunningDaemon {
  status(): StatusReport;
  /**
   * SIGHUP: the token read again, from `next`'s source when given (a reloaded configuration);
   * the next request uses it. Other settings need a restart.
   */
  reload(next?: Pick<Config, 'token'>): void;
  /** SIGTERM/SIGINT: stop new work, settle what is in flight (bounded), flush, say offline. */
  stop(): Promise<void>;
  readonly engine: PairingEngine;
  readonly counters: Counters;
}

const SHUTDOWN_SETTLE_MS = 10_000;

/** Builds the parts from configuration and starts them, in the flow's order. */
export async function startDaemon(config: Config, logger: Logger): Promise<RunningDaemon> {
  if (config.customerId === undefined || config.apiUrl === undefined) {
    throw new Error('startDaemon needs apiUrl and customerId (loadConfig requires them for run)');
  }
  const customerId = config.customerId;
  const startedAt = new Date().toISOString();
  const counters = createCounters();
  // Replaced, not changed, on reload: the API client asks for the current holder at each request.
  let tokens = new TokenHolder(config.token);
  // The installer code is read before anything starts: a loose or missing file stops start-up (exit 2).
  const webSecrets = config.web === undefined ? undefined : readWebSecrets(config.web);
  // So are the button keys: a loose file, or a line that is no key, stops start-up (exit 2).
  const fileKeys = config.buttonKeysFile === undefined ? new Map<string, Buffer>() : readKeysFile(config.buttonKeysFile);

  const store = await PairingStore.open(config.stateDir);
  if (store.lockTakeover) logger.warn({ takeover: store.lockTakeover }, 'took over a stale lock left by an earlier run');
  const keys = await ButtonKeyStore.open(config.stateDir).catch(async (error: unknown) => {
    await store.close().catch(() => undefined);
    throw error;
  });

  const api: ApiClient = createApiClient({
    baseUrl: config.apiUrl,
    token: () => tokens.current(),
    timeoutMs: config.apiTimeoutMs,
    maxInFlight: config.apiConcurrency,
    onRequest: (event) => {
      if (event.error !== undefined) counters.apiErrors++;
    },
  });

  const engine = new PairingEngine({
    customerId,
    defaultDeviceTypeId: config.deviceTypeId,
    api,
    store,
    hasToken: tokens.current() !== undefined,
    apiConcurrency: config.apiConcurrency,
    entitlementTtlMs: config.entitlementTtlMs,
    minRssi: config.minRssi,
    autoPair: config.autoPair,
    counters,
    logger,
    apiAddress: apiBase(config.apiUrl),
  });
  // Supervision hears every sighting before the engine does: a timestamp on the hot path.
  const sides: HearingSides = { ble: undefined, mqtt: undefined };
  // Counters are read lazily: the authenticator is made after the supervisor it feeds.
  let authenticator: Authenticator | undefined;
  const supervisor = createSupervisor({ config, store, engine, sides, logger, counterOf: (deviceId) => authenticator?.counter(deviceId),
    imitatedOf: (deviceId) => (authenticator?.keyed(deviceId) === true ? authenticator.imitated(deviceId) : undefined),
  });
  // A keyed button's reports count only once verified (CONTRACT.md section 19): every sighting
  // passes the authenticator first, which hands on what counts.
  authenticator = createAuthenticator({
    config,
    store,
    keys,
    fileKeys,
    counters,
    logger,
    deliver: (sighting) => {
      supervisor.heard(sighting);
      engine.sighting(sighting);
    },
    hearOnly: (sighting) => supervisor.heard(sighting),
    changed: (deviceId) => supervisor.retell(deviceId),
  });
  const auth = authenticator;
  engine.onDevice((record) => {
    if (record.state === 'linked') auth.linked(record.deviceId);
  });
  const onSighting = (sighting: Sighting): void => auth.sighting(sighting);
  const ble = await startBleSide({ config, counters, logger, onSighting });
  sides.ble = ble;

  // The MQTT side's state listeners first: a retained `linked` should not wait on a log line.
  const mqtt: MqttSide | undefined = config.mqtt
    ? startMqttSide({ config, engine, counters, logger, onSighting, supervision: { feed: supervisor, rows: () => deviceRows(engine.devices(), supervisor, auth) } })
    : undefined;
  sides.mqtt = mqtt;
  // A gateway's last will or Zigbee2MQTT's bridge state counts at once, not at the next sweep.
  mqtt?.onSourceLiveness(() => supervisor.sweep());
  supervisor.start();
  engine.onDevice((record) => logger.info({ deviceId: record.deviceId, state: record.state, linkId: record.linkId, error: record.error }, 'device state'));
  engine.onEntitlement((state) => logger.info({ entitlement: state }, 'entitlement checked'));

  const status = (): StatusReport =>
    buildStatus({
      version: packageVersion(),
      pid: process.pid,
      startedAt,
      entitlement: engine.gate.state(),
      household: engine.gates.householdIds(),
      token: engine.health.token,
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
      buttonProblems: [...supervisor.problems(), ...auth.problems()],
      supervision: config.supervision.on ? 'on' : 'off',
      autoPair: config.autoPair,
      ...(config.homeAssistant === undefined ? {} : { homeAssistantPrefix: config.homeAssistant.prefix }),
      ...(engine.windowOpenUntil() === undefined ? {} : { windowOpenUntil: engine.windowOpenUntil() }),
      counters,
      clockUnset: wallClockIsUnset(buildTime()),
      uptimeSeconds: Math.round(process.uptime()),
    });

  // The fleet's view of this hub is derived from the same report `status --json` prints.
  mqtt?.publishHealth(() => healthOf(status()));

  const hearing: Hearing = {
    // BLE scanning (or starting) may still hear the button. Otherwise the hub is deaf when MQTT
    // cannot hear either (the broker refuses its subscriptions, or MQTT is off while BLE is wanted
    // but unusable), and the reason names both (CONTRACT.md section 14).
    deafness: () => {
      if (ble.state === 'scanning' || ble.state === 'starting') return undefined;
      const mqttDeaf = mqtt === undefined ? (ble.state === 'off' ? undefined : 'MQTT is off') : mqtt.deafness();
      if (mqttDeaf === undefined) return undefined;
      return ble.state === 'off' ? mqttDeaf : `BLE is ${ble.state}${ble.reason === undefined ? '' : ` (${ble.reason})`}, and ${mqttDeaf}`;
    },
    onChange: (listener) => mqtt?.onRefusalChange(listener) ?? (() => undefined),
  };
  const handlers: ControlHandlers = {
    status,
    devices: () => deviceRows(engine.devices(), supervisor, auth),
    scan: (seconds, signal) => engine.scan(seconds, signal),
    forget: async (deviceId) => {
      const outcome = await engine.forget(deviceId);
      await auth.forget(deviceId);
      return outcome;
    },
    pair: guardPairing(pairingWithKeys({ engine, authenticator: auth, supervisor, hubCustomerId: customerId }), hearing),
    window: guardWindow((seconds, options) => engine.openWindow(seconds, options), hearing),
    household: () => engine.household(),
  };
  const control = await startControlServer({ socketPath: path.join(config.runtimeDir, CONTROL_SOCKET_NAME), logger, handlers });
  const web = await startWebSide({ config, secrets: webSecrets, engine, handlers, logger }).catch(async (error: unknown) => {
    await control.close().catch(() => undefined);
    throw error;
  });

  // Entitlement is asked at start (status shows it at once) and again every TTL, and published.
  void engine.gate.check();
  const refreshMs = Math.max(config.entitlementTtlMs, 60_000);
  const refresh = setInterval(() => {
    void engine.gate.check();
    if (engine.unsavedLinks > 0) void engine.retryUnsaved();
  }, refreshMs);
  refresh.unref();

  void engine.recover().catch((error: unknown) => logger.error({ err: messageOf(error) }, 'recovery failed'));
  logger.info({ customerId, stateDir: config.stateDir, runtimeDir: config.runtimeDir, mqtt: config.mqtt ? 'on' : 'off', ble: ble.state, devices: store.size }, 'panic-pair daemon started');

  let stopping: Promise<void> | undefined;
  return {
    engine,
    counters,
    status,
    reload(next) {
      try {
        if (next?.token !== undefined) tokens = new TokenHolder(next.token);
        else tokens.reload();
        logger.info('configuration reloaded: the next request uses the token read now');
        // Ask at once, so that `status` says whether the new token is accepted.
        void engine.gate.check();
      } catch (error) {
        logger.error({ err: messageOf(error) }, 'reload failed; the token in use is kept');
      }
    },
    stop() {
      stopping ??= (async () => {
        logger.info('shutting down');
        clearInterval(refresh);
        await ble.stop();
        // Links in flight settle first, so an installer's `pair` waiting on one still hears the
        // outcome; the engine refuses new requests meanwhile. Then the control socket closes.
        const settled = await engine.drain(SHUTDOWN_SETTLE_MS);
        if (!settled) logger.warn('requests still in flight at shutdown; they will be finished at the next start');
        await web?.close().catch(() => undefined);
        await control.close().catch(() => undefined);
        await engine.retryUnsaved();
        await supervisor.stop();
        await mqtt?.close().catch(() => undefined);
        api.close();
        await store.close();
        logger.info('stopped');
      })();
      return stopping;
    },
  };
}

function writeCounts(store: PairingStore): { writes: number; fsyncs: number; bytesWritten: number } {
  const { writes, fsyncs, bytesWritten } = store.stats();
  return { writes, fsyncs, bytesWritten };
}
