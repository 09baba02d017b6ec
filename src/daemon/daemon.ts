import { createApiClient, type ApiClient } from '../api/index.js';
import { apiBase } from '../api/base-url.js';
import type { Config } from '../config/index.js';
import { readKeysFile } from '../config/button-keys.js';
import { readWebSecrets } from '../config/web.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { healthOf } from '../mqtt/health.js';
import { PairingEngine } from '../pairing/engine.js';
import { createCounters, type Counters } from '../status/counters.js';
import type { StatusReport } from '../status/status-report.js';
import { startBleSide } from './ble-side.js';
import { startControlSide } from './control-side.js';
import { startEntitlementRefresh } from './entitlement-refresh.js';
import { hearingOf } from './hearing-guard.js';
import type { MqttSide } from './mqtt-side.js';
import { createSightingPath } from './sighting-path.js';
import { pageOf, statusReporter } from './status-reporter.js';
import { openStores } from './stores.js';
import { deviceRow, deviceRows, type HearingSides } from './supervision-side.js';
import { TokenHolder } from './token-holder.js';
import { UpdateWatch } from './update-watch.js';
import { startWebSide } from './web-side.js';

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
  const { store, keys } = await openStores(config.stateDir, logger);

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

  // The MQTT side and its client library (about a hundred modules, a third of the start here) only
  // where MQTT is configured; loaded before BLE starts, so that nothing waits between the two.
  const mqttSide = config.mqtt === undefined ? undefined : await import('./mqtt-side.js');
  const sides: HearingSides = { ble: undefined, mqtt: undefined };
  const { onSighting, supervisor, authenticator } = createSightingPath({ config, store, keys, fileKeys, engine, sides, counters, logger });
  const ble = await startBleSide({ config, counters, logger, onSighting });
  sides.ble = ble;
  // The MQTT side's state listeners first: a retained `linked` should not wait on a log line.
  const mqtt: MqttSide | undefined = mqttSide
    ? mqttSide.startMqttSide({
        config,
        engine,
        counters,
        logger,
        onSighting,
        supervision: {
          feed: supervisor,
          rows: () => deviceRows(engine.devices(), supervisor, authenticator),
          row: (deviceId) => {
            const record = engine.record(deviceId);
            return record === undefined ? undefined : deviceRow(record, supervisor, authenticator);
          },
        },
      })
    : undefined;
  sides.mqtt = mqtt;
  // A gateway's last will or Zigbee2MQTT's bridge state counts at once, not at the next sweep.
  mqtt?.onSourceLiveness(() => supervisor.sweep());
  supervisor.start();
  engine.onDevice((record) => logger.info({ deviceId: record.deviceId, state: record.state, linkId: record.linkId, error: record.error }, 'device state'));
  engine.onEntitlement((state) => logger.info({ entitlement: state }, 'entitlement checked'));

  let pagePort: number | undefined;
  const report = statusReporter({ config, startedAt, engine, store, ble, mqtt, supervisor, authenticator, counters });
  const updates = new UpdateWatch({ stateDir: config.stateDir, logger });
  // A person's `status` reads the update record now, and the hub's name and addresses for the
  // page's; what samples the status every second (the health, systemd's status line, the page)
  // takes the record as last read (a stat every 30 s) and carries no address.
  const status = (): StatusReport => report(updates.latest());
  const askedStatus = (): StatusReport => report(updates.read(), pageOf(config, pagePort));
  // The fleet's view of this hub is derived from the same report `status --json` prints.
  mqtt?.publishHealth(() => healthOf(status()));

  const hearing = hearingOf(ble, mqtt);
  const control = await startControlSide({ config, hubCustomerId: customerId, engine, supervisor, authenticator, hearing, status: askedStatus, logger });
  const web = await startWebSide({ config, secrets: webSecrets, engine, handlers: { ...control.handlers, status }, logger }).catch(async (error: unknown) => {
    await control.server.close().catch(() => undefined);
    throw error;
  });
  pagePort = web?.port;

  const stopRefresh = startEntitlementRefresh(engine, config.entitlementTtlMs);
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
        stopRefresh();
        await ble.stop();
        // Links in flight settle first, so an installer's `pair` waiting on one still hears the
        // outcome; the engine refuses new requests meanwhile. Then the control socket closes.
        const settled = await engine.drain(SHUTDOWN_SETTLE_MS);
        if (!settled) logger.warn('requests still in flight at shutdown; they will be finished at the next start');
        await web?.close().catch(() => undefined);
        await control.server.close().catch(() => undefined);
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
