import type { Counters } from '../status/counters.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { RateLimitedWarning } from '../log/rate-limited.js';
import { bleModuleProblem, bleModuleReason } from './ble-module.js';
import { addBthome } from './bthome.js';
import type { AdapterState, NoblePeripheral, NobleRadio } from './noble-loader.js';
import type { ProfileMatcher } from './profiles.js';
import type { Sighting } from '../sighting.js';
import { monotonicNow } from '../clock.js';

// The BLE source: noble scanning (the hub's radio, or a replayed capture on the VirtualHciSocket),
// every advertisement matched against the profiles, each button heard turned into a sighting.
// One source lives as long as one opened adapter: it keeps scanning through power cycles, starts
// again a scan someone else stopped or reset, and refreshes a scan after silence without a word.
// An adapter that goes away is the recovery ladder's (adapter-recovery.ts), which opens a new one.

export type BleState = 'starting' | 'scanning' | 'unavailable' | 'unauthorized' | 'powered-off' | 'blocked';

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
  /** The monotonic clock (src/clock.ts): sighting times and the silence refresh. */
  now?: () => number;
  /** A scan that delivered no report for this long is started afresh, silently; default SILENT_SCAN_REFRESH_MS. */
  quietRestartMs?: number;
  /** How often the silence is looked at; default 10 s. */
  watchdogMs?: number;
  /** The HCI socket failed under noble (RadioEvents.socketError): for the ladder to decide. */
  onSocketError?(error: Error & { code?: string }): void;
  /** noble's per-device memory is dropped beyond this many devices; default 4096. */
  maxKnownDevices?: number;
  /**
   * Each change of state, told here instead of logged: the recovery ladder logs the state it makes
   * of it (an adapter opened on trial, not yet known to be the configured one, is not `scanning`).
   */
  onCondition?(condition: BleCondition): void;
}

export interface BleSource {
  condition(): BleCondition;
  /** Scans started again after someone else stopped one or reset the controller (never a silence refresh). */
  readonly restarts: number;
  /** The monotonic time of the latest advertisement heard (any, button or not); undefined before the first. */
  readonly lastHeardAt: number | undefined;
  stop(): void;
}

/** What the unauthorized state needs, said the same way wherever it is reported. */
export const CAPABILITY_FIX = 'grant CAP_NET_RAW and CAP_NET_ADMIN (AmbientCapabilities= in the systemd unit), or run as root';
/** noble's RSSI when the controller has none. */
const RSSI_UNKNOWN = 127;
/**
 * After another program stops the scan or resets the controller, the scan is started again this
 * much later: long enough that a program stopping it in a loop (a kernel passive scan beside
 * bluetoothd) is not fought at full speed, short enough to be scanning again within 5 s.
 */
export const RESTART_AFTER_STOP_MS = 1_000;
/**
 * A scan that has heard nothing for this long is started afresh. Some controller firmware (seen on
 * Raspberry Pis) keeps a scan "enabled" that reports nothing until it is started again; but a home
 * where nothing advertises is normal, so this refresh is no fault: logged at debug, never counted,
 * never an adapter reset. A minute keeps a stalled scan short and costs two HCI commands a minute.
 */
export const SILENT_SCAN_REFRESH_MS = 60_000;
/** How often silence is looked at: a sixth of the refresh, at the cost of a counter read. */
const SILENCE_LOOK_MS = 10_000;

/** The daemon's log line for BLE's state: info while it is well, a warning with the reason otherwise. */
export function logBleState(logger: Logger, condition: BleCondition, adapter: string): void {
  if (condition.reason === undefined) logger.info({ ble: condition.state, adapter }, 'BLE state');
  else logger.warn({ ble: condition.state, adapter, reason: condition.reason }, 'BLE state');
}

export function startBleSource(options: BleSourceOptions): BleSource {
  const { radio, matcher, source, adapter, counters, logger, onSighting } = options;
  const noble = radio.noble;
  const now = options.now ?? monotonicNow;
  const quietRestartMs = options.quietRestartMs ?? SILENT_SCAN_REFRESH_MS;
  const maxKnown = options.maxKnownDevices ?? 4096;
  const unusable = new RateLimitedWarning({ logger, now, summary: (n) => `${n} more BLE advertisements dropped` });
  let condition: BleCondition = { state: 'starting' };
  let stopped = false;
  let restarts = 0;
  let reports = 0;
  let reportsAtLastLook = 0;
  let quietSince = now();
  let lastHeardAt: number | undefined;
  let pendingRestart: NodeJS.Timeout | undefined;

  const setCondition = (next: BleCondition): void => {
    if (next.state === condition.state && next.reason === condition.reason) return;
    condition = next;
    if (options.onCondition !== undefined) options.onCondition(next);
    else logBleState(logger, next, adapter);
  };

  const scan = (why: 'adapter on' | 'stopped by something else' | 'controller reset' | 'silence'): void => {
    if (stopped) return;
    try {
      // Duplicates allowed: each report refreshes RSSI and liveness, and a button pressed again is heard again.
      noble.startScanning([], true);
      quietSince = now();
      if (why === 'silence') logger.debug({ adapter }, 'no BLE report for a while (a quiet home is normal); scan refreshed');
      else if (why !== 'adapter on') logger.info({ adapter, why }, 'BLE scan started again');
    } catch (error) {
      logger.warn({ adapter, error: messageOf(error) }, 'BLE scan could not start; waiting for the adapter');
    }
  };

  const restartSoon = (why: 'stopped by something else' | 'controller reset'): void => {
    clearTimeout(pendingRestart);
    // Counted as the scan is asked for again, so that the count says a restart was made.
    pendingRestart = setTimeout(() => {
      restarts += 1;
      scan(why);
    }, RESTART_AFTER_STOP_MS);
    pendingRestart.unref();
  };

  radio.listen({
    socketError: (error) => options.onSocketError?.(error),
    // Another program's HCI Reset (hciconfig reset, btmgmt, a crashed bluetoothd's recovery) turns
    // the scan off without the Set Scan Enable command noble watches for: noble would say nothing.
    controllerReset: () => {
      if (stopped || condition.state !== 'scanning') return;
      logger.warn({ adapter }, 'the controller was reset by something else; starting the scan again');
      restartSoon('controller reset');
    },
    malformed: (error) => {
      counters.dropped += 1;
      unusable.warn({ adapter, error: messageOf(error) }, 'an HCI packet noble could not parse was dropped');
    },
  });
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
    restartSoon('stopped by something else');
  });

  // The hot path: every advertisement heard, most of them not buttons.
  noble.on('discover', (peripheral: NoblePeripheral) => {
    reports += 1;
    lastHeardAt = now();
    counters.announcements += 1;
    const match = matcher.advertisement(peripheral.advertisement, peripheral.address);
    if (match === undefined) return;
    if (!match.ok) {
      counters.dropped += 1;
      unusable.warn({ adapter, address: peripheral.address, profile: match.profile, reason: match.invalid }, 'advertisement matches a profile but has no usable deviceId');
      return;
    }
    const sighting: Sighting = { deviceId: match.deviceId, source, at: now(), profile: match.profile };
    if (peripheral.rssi !== RSSI_UNKNOWN) sighting.rssi = peripheral.rssi;
    if (match.deviceTypeId !== undefined) sighting.deviceTypeId = match.deviceTypeId;
    // Only a button's service data is read, never a phone's (docs/reference/performance.md).
    if (addBthome(sighting, peripheral.advertisement.serviceData, peripheral.address)) counters.batteryDropped += 1;
    // Called from noble's socket handler: an error here must not escape into the native socket.
    try {
      onSighting(sighting);
    } catch (error) {
      counters.dropped += 1;
      unusable.warn({ adapter, deviceId: sighting.deviceId, error: messageOf(error) }, 'a BLE sighting could not be handled');
    }
  });

  // Counting reports costs nothing per report; see SILENT_SCAN_REFRESH_MS for why silence is refreshed.
  const watchdog = setInterval(() => {
    if (reports !== reportsAtLastLook) {
      reportsAtLastLook = reports;
      quietSince = now();
    } else if (condition.state === 'scanning' && now() - quietSince >= quietRestartMs) {
      scan('silence');
    }
    // noble keeps every address it ever heard; phones change theirs every few minutes.
    if (radio.knownDevices() > maxKnown) radio.forgetDevices();
  }, options.watchdogMs ?? SILENCE_LOOK_MS);
  watchdog.unref();

  return {
    condition: () => condition,
    get restarts() {
      return restarts;
    },
    get lastHeardAt() {
      return lastHeardAt;
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
      return poweredOff(adapter);
    case 'unauthorized':
      return { state: 'unauthorized', reason: `not permitted to use ${adapter}: ${CAPABILITY_FIX}` };
    case 'unsupported':
      return { state: 'unavailable', reason: `unsupported: ${adapter} does not support Bluetooth Low Energy` };
    default:
      return { state: 'starting' };
  }
}

/** The fixes for each state that waits on the installer, worded once for status, check and the page. */
export const POWER_ON_FIX = 'bluetoothctl power on (or btmgmt power on)';
export const RFKILL_FIX = 'rfkill unblock bluetooth';

export function poweredOff(adapter: string): BleCondition {
  const index = /^hci(\d+)$/.exec(adapter)?.[1];
  const btmgmt = index === undefined || index === '0' ? 'btmgmt power on' : `btmgmt --index ${index} power on`;
  return { state: 'powered-off', reason: `${adapter} is powered off: power it on (bluetoothctl power on, or ${btmgmt})` };
}

export function blocked(adapter: string, block: { soft: boolean; hard: boolean }): BleCondition {
  if (block.hard) return { state: 'blocked', reason: `${adapter} is blocked by rfkill (hard block: a switch or the firmware); undo it there, then ${RFKILL_FIX}` };
  return { state: 'blocked', reason: `${adapter} is blocked by rfkill (soft block): ${RFKILL_FIX}` };
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
