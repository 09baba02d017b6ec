import type { Counters } from '../daemon/counters.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { RateLimitedWarning } from '../log/rate-limited.js';
import { bleModuleProblem, bleModuleReason } from './ble-module.js';
import type { AdapterState, NoblePeripheral, NobleRadio } from './noble-loader.js';
import type { ProfileMatcher } from './profiles.js';
import type { Sighting } from './sighting.js';
import { monotonicNow } from '../clock.js';

// The BLE source: noble scanning (the hub's radio, or a replayed capture on the VirtualHciSocket),
// every advertisement matched against the profiles, each button heard turned into a sighting.
// It keeps scanning through adapter power cycles and restarts a scan that went quiet.

export type BleState = 'starting' | 'scanning' | 'unavailable' | 'unauthorized' | 'powered-off';

export interface BleCondition {
  state: BleState;
  /** Why BLE is not scanning, in words an installer can act on. */
  reason?: string;
}

export interface BleSourceOptions {
  radio: NobleRadio;
  matcher: ProfileMatcher;
  /** The sighting's source word: `ble`. */
  source: string;
  /** The adapter in messages, e.g. `hci0`. */
  adapter: string;
  counters: Counters;
  logger: Logger;
  onSighting(sighting: Sighting): void;
  /** The monotonic clock (src/clock.ts): sighting times and the quiet-scan watchdog. */
  now?: () => number;
  /** A scan that delivered no report for this long is restarted; default 60 s. */
  quietRestartMs?: number;
  /** How often the watchdog looks; default 10 s. */
  watchdogMs?: number;
  /** noble's per-device memory is dropped beyond this many devices; default 4096. */
  maxKnownDevices?: number;
}

export interface BleSource {
  condition(): BleCondition;
  /** Scan restarts by the watchdog or after an unexpected stop. */
  readonly restarts: number;
  stop(): void;
}

/** What the unauthorized state needs, said the same way wherever it is reported. */
export const CAPABILITY_FIX = 'grant CAP_NET_RAW and CAP_NET_ADMIN (AmbientCapabilities= in the systemd unit), or run as root';
/** noble's RSSI when the controller has none. */
const RSSI_UNKNOWN = 127;
/** After an unexpected scan stop (another program on the adapter), the scan is started again. */
const RESTART_AFTER_STOP_MS = 1_000;

export function startBleSource(options: BleSourceOptions): BleSource {
  const { radio, matcher, source, adapter, counters, logger, onSighting } = options;
  const noble = radio.noble;
  const now = options.now ?? monotonicNow;
  const quietRestartMs = options.quietRestartMs ?? 60_000;
  const maxKnown = options.maxKnownDevices ?? 4096;
  const unusable = new RateLimitedWarning({ logger, now, summary: (n) => `${n} more BLE advertisements dropped` });
  let condition: BleCondition = { state: 'starting' };
  let stopped = false;
  let restarts = 0;
  let reports = 0;
  let reportsAtLastLook = 0;
  let quietSince = now();
  let pendingRestart: NodeJS.Timeout | undefined;

  const setCondition = (next: BleCondition): void => {
    if (next.state === condition.state && next.reason === condition.reason) return;
    condition = next;
    if (next.reason === undefined) logger.info({ ble: next.state, adapter }, 'BLE state');
    else logger.warn({ ble: next.state, adapter, reason: next.reason }, 'BLE state');
  };

  const scan = (why: string): void => {
    if (stopped) return;
    try {
      // Duplicates allowed: each report refreshes RSSI and liveness, and a button pressed again is heard again.
      noble.startScanning([], true);
      quietSince = now();
      if (why !== 'adapter on') logger.info({ adapter, why }, 'BLE scan started again');
    } catch (error) {
      logger.warn({ adapter, error: messageOf(error) }, 'BLE scan could not start; waiting for the adapter');
    }
  };

  noble.on('warning', (message) => logger.warn({ adapter, warning: message }, 'noble warning'));
  noble.on('stateChange', (state) => {
    setCondition(conditionOf(state, adapter));
    // A power cycle resets the controller: scanning is asked for again each time it comes back.
    if (state === 'poweredOn') scan('adapter on');
  });
  noble.on('scanStart', () => {
    quietSince = now();
    setCondition({ state: 'scanning' });
  });
  noble.on('scanStop', () => {
    if (stopped || condition.state !== 'scanning') return;
    logger.warn({ adapter }, 'the BLE scan was stopped by something else; starting it again');
    setCondition({ state: 'starting' });
    restarts += 1;
    clearTimeout(pendingRestart);
    pendingRestart = setTimeout(() => scan('stopped by something else'), RESTART_AFTER_STOP_MS);
    pendingRestart.unref();
  });

  // The hot path: every advertisement heard, most of them not buttons.
  noble.on('discover', (peripheral: NoblePeripheral) => {
    reports += 1;
    counters.announcements += 1;
    const match = matcher.advertisement(peripheral.advertisement, peripheral.address);
    if (match === undefined) return;
    if (!match.ok) {
      counters.dropped += 1;
      unusable.warn({ adapter, address: peripheral.address, profile: match.profile, reason: match.invalid }, 'advertisement matches a profile but has no usable deviceId');
      return;
    }
    const sighting: Sighting = { deviceId: match.deviceId, source, at: now() };
    if (peripheral.rssi !== RSSI_UNKNOWN) sighting.rssi = peripheral.rssi;
    if (match.deviceTypeId !== undefined) sighting.deviceTypeId = match.deviceTypeId;
    // Called from noble's socket handler: an error here must not escape into the native socket.
    try {
      onSighting(sighting);
    } catch (error) {
      counters.dropped += 1;
      unusable.warn({ adapter, deviceId: sighting.deviceId, error: messageOf(error) }, 'a BLE sighting could not be handled');
    }
  });

  // A scan can go on being "enabled" while the controller reports nothing (seen with Raspberry Pi
  // firmware); a new scan start brings it back. Counting reports costs nothing per report.
  const watchdog = setInterval(() => {
    if (reports !== reportsAtLastLook) {
      reportsAtLastLook = reports;
      quietSince = now();
    } else if (condition.state === 'scanning' && now() - quietSince >= quietRestartMs) {
      restarts += 1;
      logger.warn({ adapter, quietMs: now() - quietSince }, 'no BLE report for a while; restarting the scan');
      scan('quiet');
    }
    // noble keeps every address it ever heard; phones change theirs every few minutes.
    if (radio.knownDevices() > maxKnown) radio.forgetDevices();
  }, options.watchdogMs ?? 10_000);
  watchdog.unref();

  return {
    condition: () => condition,
    get restarts() {
      return restarts;
    },
    stop() {
      stopped = true;
      clearInterval(watchdog);
      clearTimeout(pendingRestart);
      unusable.flush();
      radio.close();
    },
  };
}

export function conditionOf(state: AdapterState, adapter: string): BleCondition {
  switch (state) {
    case 'poweredOn':
      return { state: 'starting' };
    case 'poweredOff':
      return { state: 'powered-off', reason: `${adapter} is powered off: power it on (bluetoothctl power on; rfkill unblock bluetooth)` };
    case 'unauthorized':
      return { state: 'unauthorized', reason: `not permitted to use ${adapter}: ${CAPABILITY_FIX}` };
    case 'unsupported':
      return { state: 'unavailable', reason: `unsupported: ${adapter} does not support Bluetooth Low Energy` };
    default:
      return { state: 'starting' };
  }
}

/** The condition for an adapter that could not even be opened. */
export function conditionOfOpenError(error: unknown, adapter: string): BleCondition {
  const code = (error as { code?: unknown }).code;
  const message = messageOf(error);
  const has = (word: string): boolean => code === word || message.includes(word);
  if (has('EAFNOSUPPORT')) return { state: 'unavailable', reason: 'unsupported: this kernel has no Bluetooth (AF_BLUETOOTH refused)' };
  if (has('EPERM') || has('EACCES')) return { state: 'unauthorized', reason: `not permitted to open ${adapter}: ${CAPABILITY_FIX}` };
  if (has('ENODEV')) return { state: 'unavailable', reason: `no adapter ${adapter}: check PANIC_PAIR_HCI_DEVICE against \`bluetoothctl list\`` };
  const problem = bleModuleProblem(error);
  if (problem !== undefined) return { state: 'unavailable', reason: bleModuleReason(problem, error) };
  return { state: 'unavailable', reason: `${adapter} cannot be opened: ${message}` };
}
