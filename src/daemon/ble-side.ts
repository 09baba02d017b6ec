import { adapterLabel, type Config } from '../config/index.js';
import { SETTINGS } from '../config/settings.js';
import { sysfsAdapters } from '../discovery/adapter-finder.js';
import { powerOn } from '../discovery/adapter-power.js';
import { startAdapterRecovery } from '../discovery/adapter-recovery.js';
import { startBleSource, type BleSource } from '../discovery/ble.js';
import { startReplay, type Replay } from '../discovery/ble-replay.js';
import { readCapture } from '../discovery/btsnoop.js';
import { loadNoble, type NobleRadio } from '../discovery/noble-loader.js';
import { ProfileMatcher } from '../discovery/profiles.js';
import type { Sighting } from '../sighting.js';
import { VirtualHciSocket } from '../discovery/virtual-hci-socket.js';
import { PanicPairError, messageOf } from '../errors.js';
import { secondsSince } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { Counters } from '../status/counters.js';
import type { StatusReport } from '../status/status-report.js';

// BLE for the daemon: the hub's own radio through noble, or, with PANIC_PAIR_BLE_REPLAY, a
// capture replayed through noble in its place. `auto` and `on` both use the adapter and run on
// without it while it cannot be used; the discovery layer's recovery ladder (adapter-recovery.ts)
// keeps looking for it and opens it again, and the daemon only reads its state: `status` says why
// BLE is not scanning (and, for `on`, counts it as degraded).

export interface BleSide {
  readonly state: StatusReport['ble'];
  readonly reason: string | undefined;
  /** The adapter in use, `{ name: 'hci0', address }`, or null while none is. */
  readonly adapter: StatusReport['bleAdapter'];
  /** Real recoveries: re-opens and scans started again after a stop. */
  readonly restarts: number;
  /** Seconds since the latest advertisement (monotonic); null before the first. */
  readonly lastHeardSeconds: number | null;
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
  const { config, logger } = options;
  const recovery = startAdapterRecovery({
    choice: config.hciDevice,
    finder: sysfsAdapters(),
    openRadio: (index) => loadNoble({ hciDevice: index }),
    powerOn: (index) => powerOn(index),
    source: sourceOptions(options),
    logger,
  });
  const first = recovery.condition();
  if (first.state !== 'scanning' && first.state !== 'starting') {
    const fields = { ble: first.state, reason: first.reason, setting: `${SETTINGS.ble.env}=${config.ble}` };
    if (config.ble === 'on') logger.error(fields, 'BLE is required but cannot be used; running without it until it can (status: degraded)');
    else logger.warn(fields, 'BLE cannot be used; running without it');
  }
  return {
    get state() {
      return recovery.condition().state;
    },
    get reason() {
      return recovery.condition().reason;
    },
    get adapter() {
      return recovery.adapter();
    },
    get restarts() {
      return recovery.restarts;
    },
    get lastHeardSeconds() {
      return recovery.lastHeardSeconds();
    },
    async stop() {
      recovery.stop();
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
    radio = loadNoble({ hciDevice: 0, socket });
  } catch (error) {
    throw new PanicPairError('config', `${setting}: replay runs through noble, which cannot be loaded: ${messageOf(error)}`, { cause: error });
  }
  const source = sourceOn(radio, 'replay', options);
  radio.open();
  const replay: Replay = startReplay({ capture, socket });
  const reason = `replaying ${file} (${capture.records.length} advertising reports, looping) instead of ${adapterLabel(config.hciDevice)}`;
  logger.info({ file, datalink: capture.datalink, reports: capture.records.length, records: capture.total }, 'replaying a BLE capture instead of the adapter');
  return {
    get state() {
      return source.condition().state;
    },
    get reason() {
      return source.condition().reason ?? reason;
    },
    adapter: null,
    get restarts() {
      return source.restarts;
    },
    get lastHeardSeconds() {
      return secondsSince(source.lastHeardAt);
    },
    async stop() {
      replay.stop();
      source.stop();
    },
  };
}

function sourceOn(radio: NobleRadio, adapter: string, options: BleSideOptions): BleSource {
  return startBleSource({ ...sourceOptions(options), radio, adapter });
}

function sourceOptions(options: BleSideOptions) {
  return {
    matcher: new ProfileMatcher(options.config.profiles),
    source: BLE_SOURCE,
    counters: options.counters,
    logger: options.logger,
    onSighting: options.onSighting,
  };
}

function fixed(condition: { state: StatusReport['ble']; reason?: string }): BleSide {
  return { state: condition.state, reason: condition.reason, adapter: null, restarts: 0, lastHeardSeconds: null, stop: async () => undefined };
}
