import type { Config } from '../config/index.js';
import { SETTINGS } from '../config/settings.js';
import { conditionOfOpenError, startBleSource, type BleCondition, type BleSource } from '../discovery/ble.js';
import { startReplay, type Replay } from '../discovery/ble-replay.js';
import { readCapture } from '../discovery/btsnoop.js';
import { loadNoble, type NobleRadio } from '../discovery/noble-loader.js';
import { ProfileMatcher } from '../discovery/profiles.js';
import type { Sighting } from '../discovery/sighting.js';
import { VirtualHciSocket } from '../discovery/virtual-hci-socket.js';
import { PanicPairError, messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { Counters } from './counters.js';
import type { StatusReport } from './status-report.js';

// BLE for the daemon: the hub's own radio through noble, or, with PANIC_PAIR_BLE_REPLAY, a
// capture replayed through noble in its place. `auto` and `on` both try the adapter and run on
// without it when it cannot be used; `status` says why (and, for `on`, counts it as degraded).

export interface BleSide {
  readonly state: StatusReport['ble'];
  readonly reason: string | undefined;
  stop(): Promise<void>;
}

export interface BleSideOptions {
  config: Config;
  counters: Counters;
  logger: Logger;
  onSighting(sighting: Sighting): void;
}

/** Sightings from the radio and from replayed captures alike. */
export const BLE_SOURCE = 'ble';

export async function startBleSide(options: BleSideOptions): Promise<BleSide> {
  const { config, logger } = options;
  if (config.ble === 'off') {
    if (config.bleReplay !== undefined) logger.info({ file: config.bleReplay }, `${SETTINGS.ble.env} is off: the capture is not replayed`);
    return fixed({ state: 'off' } as const);
  }
  return config.bleReplay === undefined ? startRadio(options) : startCaptureReplay(options, config.bleReplay);
}

function startRadio(options: BleSideOptions): BleSide {
  const { config } = options;
  const adapter = `hci${config.hciDevice}`;
  let radio: NobleRadio;
  try {
    radio = loadNoble({ hciDevice: config.hciDevice });
  } catch (error) {
    return unavailable(conditionOfOpenError(error, adapter), options);
  }
  const source = sourceOn(radio, adapter, options);
  try {
    radio.open();
  } catch (error) {
    source.stop();
    return unavailable(conditionOfOpenError(error, adapter), options);
  }
  return {
    get state() {
      return source.condition().state;
    },
    get reason() {
      return source.condition().reason;
    },
    async stop() {
      source.stop();
    },
  };
}

async function startCaptureReplay(options: BleSideOptions, file: string): Promise<BleSide> {
  const { config, logger } = options;
  const setting = SETTINGS.bleReplay.env;
  const capture = await readCapture(file).catch((error: unknown) => {
    throw new PanicPairError('config', `${setting}: ${messageOf(error)}`, { cause: error });
  });
  for (const warning of capture.warnings) logger.warn({ file }, `the capture ${file}: ${warning}`);
  const socket = new VirtualHciSocket();
  let radio: NobleRadio;
  try {
    radio = loadNoble({ hciDevice: config.hciDevice, socket });
  } catch (error) {
    throw new PanicPairError('config', `${setting}: replay runs through noble, which cannot be loaded: ${messageOf(error)}`, { cause: error });
  }
  const source = sourceOn(radio, 'replay', options);
  radio.open();
  const replay: Replay = startReplay({ capture, socket });
  const reason = `replaying ${file} (${capture.records.length} advertising reports, looping) instead of hci${config.hciDevice}`;
  logger.info({ file, datalink: capture.datalink, reports: capture.records.length, records: capture.total }, 'replaying a BLE capture instead of the adapter');
  return {
    get state() {
      return source.condition().state;
    },
    get reason() {
      return source.condition().reason ?? reason;
    },
    async stop() {
      replay.stop();
      source.stop();
    },
  };
}

function sourceOn(radio: NobleRadio, adapter: string, options: BleSideOptions): BleSource {
  return startBleSource({
    radio,
    matcher: new ProfileMatcher(options.config.profiles),
    source: BLE_SOURCE,
    adapter,
    counters: options.counters,
    logger: options.logger,
    onSighting: options.onSighting,
  });
}

function unavailable(condition: BleCondition, options: BleSideOptions): BleSide {
  const required = options.config.ble === 'on';
  const fields = { ble: condition.state, reason: condition.reason, setting: `${SETTINGS.ble.env}=${options.config.ble}` };
  if (required) options.logger.error(fields, 'BLE is required but cannot be used; running without it (status: degraded)');
  else options.logger.warn(fields, 'BLE cannot be used; running without it');
  return fixed(condition);
}

function fixed(condition: { state: StatusReport['ble']; reason?: string }): BleSide {
  return { state: condition.state, reason: condition.reason, stop: async () => undefined };
}
