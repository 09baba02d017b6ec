import type { AdapterChoice } from '../config/adapter.js';
import { adapterLabel } from '../config/adapter.js';
import { monotonicNow, secondsSince, type MonotonicClock } from '../clock.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { AdapterFinder, FoundAdapter, RfkillBlock } from './adapter-finder.js';
import type { PowerAnswer } from './adapter-power.js';
import { AdapterSearch } from './adapter-search.js';
import { blocked, conditionOfOpenError, logBleState, startBleSource, type BleCondition, type BleSource, type BleSourceOptions } from './ble.js';
import type { NobleRadio } from './noble-loader.js';

// The recovery ladder of the hub's radio, in one place (CONTRACT.md section 14). noble binds its
// HCI socket once and never again, so every way an adapter goes away ends the same: close that
// noble, say `unavailable`, look for the adapter every second, open a fresh noble on it when it is
// back (under the same hciN or a new one; found by its address when configured so). What an
// adapter does while it stays (power off and on, a scan stopped or reset by someone else, silence)
// is the BLE source's (ble.ts), which keeps its noble.
//
//   rung                        trigger                                       next
//   look for the adapter        start; ADAPTER_POLL_MS while absent           open, or look again
//   open                        the adapter is listed (or sysfs lists none)   watch; an open error waits
//                                                                             ADAPTER_POLL_MS (ENODEV) or
//                                                                             REOPEN_UNUSABLE_MS (other)
//   watch                       PRESENCE_POLL_MS; socket ENODEV/EPIPE/EBADFD  gone: close, look again
//                                                                             after ADAPTER_POLL_MS
//   power on                    each open of an adapter the kernel lists,     noble sees it up; the
//                               and an rfkill unblock that leaves it down     source scans
//   powered off / blocked       noble's poweredOff, told apart by rfkill      the source scans again at
//                                                                             power on or unblock

/**
 * How often an absent adapter is looked for, and how long after a fault the first look waits. A
 * readdir of /sys/class/bluetooth costs microseconds; one second leaves nine of the ten seconds the
 * contract allows for opening noble and starting the scan, and keeps a fault that repeats at once
 * (an adapter that fails each open) at one attempt a second.
 */
export const ADAPTER_POLL_MS = 1_000;
/**
 * While open, how often the adapter's presence and rfkill are read. Needed besides the socket's own
 * errors: once its adapter unregisters, the kernel's raw socket reports EPIPE on one read (which
 * the HCI module drops) and noble only sees the adapter as powered off.
 */
export const PRESENCE_POLL_MS = 1_000;
/**
 * An adapter that cannot be opened for another reason than its absence (capabilities refused, no
 * Bluetooth in the kernel, the HCI module missing) is tried again this often: such causes change
 * only by the installer's hand, and the retry costs a socket every half minute.
 */
export const REOPEN_UNUSABLE_MS = 30_000;

/**
 * Power on is asked again this many times, a PRESENCE_POLL_MS apart, while the kernel refuses it:
 * an adapter still in its setup is an "invalid index" to the management interface for a moment.
 */
export const POWER_ON_ATTEMPTS = 5;

/** The socket errors that mean the adapter is gone from under it (ENODEV: unregistered; EPIPE: unbound by its removal; EBADFD: written after that; EBADF: a socket started again after its stop, kernel-hci-socket.ts). */
const GONE = new Set(['ENODEV', 'EPIPE', 'EBADFD', 'EBADF']);

export interface AdapterRecoveryOptions {
  choice: AdapterChoice;
  finder: AdapterFinder;
  /** A fresh noble on adapter `index`; throws what loading noble or the socket throws. */
  openRadio(index: number): NobleRadio;
  /**
   * Asks the kernel to power adapter `index` on (adapter-power.ts), as bluetoothd does for an
   * adapter it finds and after an rfkill unblock. Without bluetoothd nothing else would: the kernel
   * powers a new adapter off two seconds after its setup unless asked, and leaves one down after an
   * unblock. An adapter powered off while in use is left off. Not given: never asked.
   */
  powerOn?(index: number): Promise<PowerAnswer>;
  /** What the BLE source on each opened adapter needs besides its radio. */
  source: Omit<BleSourceOptions, 'radio' | 'adapter' | 'onSocketError' | 'onCondition' | 'now'>;
  logger: Logger;
  now?: MonotonicClock;
}

export interface AdapterRecovery {
  condition(): BleCondition;
  /** The adapter open now: its name and, once known, its address; null while none is. */
  adapter(): { name: string; address: string | null } | null;
  /** Real recoveries: adapters opened again after a fault, and scans started again after a stop or reset. */
  readonly restarts: number;
  /** Seconds since the latest advertisement on the monotonic clock; null before the first. */
  lastHeardSeconds(): number | null;
  stop(): void;
}

interface Open {
  kind: 'open';
  adapter: FoundAdapter;
  radio: NobleRadio;
  source: BleSource;
  /** By address: the adapter's own address has been read and is the one configured. */
  verified: boolean;
  block: RfkillBlock | undefined;
  /** Power on asked of the kernel for this open (and again after each unblock), or under way. */
  powerAsked: boolean;
  powerAttempts: number;
  /**
   * The adapter has scanned since this open (or the last unblock): a power-on that failed is no
   * longer tried again, so that an adapter someone powers off afterwards stays off (CONTRACT 14:
   * `powered-off` until they power it on).
   */
  up: boolean;
}

interface Waiting {
  kind: 'waiting';
  condition: BleCondition;
}

export function startAdapterRecovery(options: AdapterRecoveryOptions): AdapterRecovery {
  const { choice, finder, logger } = options;
  const now = options.now ?? monotonicNow;
  const wanted = 'address' in choice ? choice.address : undefined;
  const label = adapterLabel(choice);
  const search = new AdapterSearch(choice, finder);
  let phase: Open | Waiting = { kind: 'waiting', condition: { state: 'starting' } };
  let timer: NodeJS.Timeout | undefined;
  let faulted = false;
  let reopens = 0;
  let retiredRestarts = 0;
  let lastHeardAt: number | undefined;
  let reported: BleCondition = { state: 'starting' };
  let stopped = false;

  const schedule = (ms: number, step: () => void): void => {
    clearTimeout(timer);
    timer = setTimeout(step, ms);
    timer.unref();
  };

  const condition = (): BleCondition => {
    if (phase.kind === 'waiting') return phase.condition;
    const own = phase.source.condition();
    if (own.state === 'powered-off' && phase.block !== undefined) return blocked(phase.adapter.name, phase.block);
    if (wanted !== undefined && !phase.verified && own.state === 'scanning') return { state: 'starting' };
    return own;
  };

  // Every state is logged here, as the ladder makes it of the source's (which tells it, not logs it).
  const report = (): void => {
    if (phase.kind === 'open' && phase.source.condition().state === 'scanning') phase.up = true;
    const next = condition();
    if (next.state === reported.state && next.reason === reported.reason) return;
    reported = next;
    logBleState(logger, next, phase.kind === 'open' ? phase.adapter.name : label);
  };

  const wait = (next: BleCondition, ms: number): void => {
    phase = { kind: 'waiting', condition: next };
    report();
    schedule(ms, look);
  };

  const absent = (): BleCondition => ({
    state: 'unavailable',
    reason: `no adapter ${label} (${faulted ? 'it went away' : 'not present'}); waiting for it: check \`bluetoothctl list\`, and on a Raspberry Pi \`systemctl status hciuart\``,
  });

  function look(): void {
    if (stopped) return;
    const adapter = search.next();
    if (adapter === undefined) return wait(absent(), ADAPTER_POLL_MS);
    open(adapter);
  }

  function open(adapter: FoundAdapter): void {
    let radio: NobleRadio | undefined;
    let source: BleSource | undefined;
    try {
      radio = options.openRadio(adapter.index);
      const opened: NobleRadio = radio;
      source = startBleSource({ ...options.source, radio, adapter: adapter.name, now, onSocketError: (error) => socketError(opened, error), onCondition: report });
      radio.open();
    } catch (error) {
      if (source !== undefined) source.stop();
      else radio?.close();
      const cause = conditionOfOpenError(error, adapter.name);
      if (errorCode(error) === 'ENODEV') return wait(absent(), ADAPTER_POLL_MS);
      return wait(cause, REOPEN_UNUSABLE_MS);
    }
    const verified = search.fits(adapter);
    const opened: Open = { kind: 'open', adapter, radio, source, verified, block: undefined, powerAsked: false, powerAttempts: 0, up: false };
    phase = opened;
    // At once: the kernel powers a new adapter off two seconds after its setup unless asked.
    if (finder.adapters() !== null) askPowerOn(opened);
    if (faulted) {
      reopens += 1;
      faulted = false;
      logger.info({ adapter: adapter.name }, 'BLE adapter opened again');
    }
    report();
    schedule(PRESENCE_POLL_MS, watch);
  }

  function watch(): void {
    if (stopped || phase.kind !== 'open') return;
    const current = phase;
    const listed = finder.adapters();
    if (listed !== null && !listed.some((a) => a.name === current.adapter.name)) return fault(`${current.adapter.name} is no longer listed by the kernel`);
    if (wanted !== undefined && !current.verified) {
      const address = current.radio.address();
      if (address !== undefined) {
        search.learn(current.adapter, address);
        if (search.fits(current.adapter)) current.verified = true;
        else {
          // Not ours: another adapter, tried because its address could not be read before opening.
          logger.info({ adapter: current.adapter.name, address, wanted }, 'not the configured adapter; looking further');
          close();
          return look();
        }
      }
    }
    const wasBlocked = current.block !== undefined;
    current.block = current.source.condition().state === 'powered-off' ? finder.rfkill(current.adapter.name) : undefined;
    if (wasBlocked && current.block === undefined) {
      current.powerAsked = false;
      current.powerAttempts = 0;
      current.up = false;
    }
    // Only for an adapter the kernel lists: without sysfs there is no kernel of that kind to ask.
    if (!current.powerAsked && !current.up && current.block === undefined && listed !== null) askPowerOn(current);
    report();
    schedule(PRESENCE_POLL_MS, watch);
  }

  function askPowerOn(current: Open): void {
    current.powerAsked = true;
    if (options.powerOn === undefined) return;
    current.powerAttempts += 1;
    const { name, index } = current.adapter;
    void options.powerOn(index).then((answer) => {
      if (answer.ok) return logger.debug({ adapter: name }, 'asked the kernel to power the adapter on');
      if (current.up) return;
      if (current.powerAttempts < POWER_ON_ATTEMPTS) current.powerAsked = false;
      else logger.info({ adapter: name, reason: answer.reason }, 'the kernel did not power the adapter on; it stays as it is');
    });
  }

  function socketError(radio: NobleRadio, error: Error & { code?: string }): void {
    const code = errorCode(error);
    if (code === undefined || !GONE.has(code)) return;
    // Raised inside the socket's own callback: the radio is closed once that has returned.
    setImmediate(() => {
      if (phase.kind === 'open' && phase.radio === radio) fault(`the HCI socket failed: ${code}`);
    });
  }

  function fault(why: string): void {
    if (phase.kind !== 'open') return;
    logger.warn({ adapter: phase.adapter.name, why }, 'the BLE adapter went away; waiting for it to come back');
    close();
    faulted = true;
    wait(absent(), ADAPTER_POLL_MS);
  }

  function close(): void {
    if (phase.kind !== 'open') return;
    retiredRestarts += phase.source.restarts;
    lastHeardAt = latest(lastHeardAt, phase.source.lastHeardAt);
    try {
      phase.source.stop();
    } catch (error) {
      logger.debug({ error: messageOf(error) }, 'closing the BLE adapter failed; it is gone anyway');
    }
    phase = { kind: 'waiting', condition: { state: 'starting' } };
  }

  look();

  return {
    condition,
    adapter() {
      if (phase.kind !== 'open') return null;
      const address = phase.radio.address() ?? search.addressOf(phase.adapter) ?? null;
      return { name: phase.adapter.name, address };
    },
    get restarts() {
      return reopens + retiredRestarts + (phase.kind === 'open' ? phase.source.restarts : 0);
    },
    lastHeardSeconds() {
      const at = latest(lastHeardAt, phase.kind === 'open' ? phase.source.lastHeardAt : undefined);
      return secondsSince(at, now());
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      close();
    },
  };
}

function latest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  // Some HCI module builds put the errno name only in the message.
  return /\b(ENODEV|EPIPE|EBADFD|EBADF|EPERM|EACCES|EAFNOSUPPORT)\b/.exec(messageOf(error))?.[1];
}
