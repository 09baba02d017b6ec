import type { AdapterChoice } from '../config/adapter.js';
import { adapterLabel } from '../config/adapter.js';
import { monotonicNow, secondsSince, type MonotonicClock } from '../clock.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { AdapterFinder, FoundAdapter, RfkillBlock } from './adapter-finder.js';
import { errorCode, openAdapter } from './adapter-open.js';
import type { PowerAnswer } from './adapter-power.js';
import { AdapterSearch } from './adapter-search.js';
import { blocked, logBleState, type BleCondition, type BleSource, type BleSourceOptions } from './ble.js';
import type { NobleRadio } from './noble-loader.js';
import { powerOnRung, type PowerOnRung } from './power-on-rung.js';

// The recovery ladder of the hub's radio, in one place. noble binds its
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
//   power on (power-on-rung.ts) each open of an adapter the kernel lists,     noble sees it up; the
//                               and an rfkill unblock; asked again while the  source scans
//                               kernel answers "not ready" (invalid index)
//   powered off / blocked       noble's poweredOff, told apart by rfkill      the source scans again at
//                                                                             power on or unblock

/**
 * How often an absent adapter is looked for, and how long after a fault the first look waits. A
 * readdir of /sys/class/bluetooth costs microseconds; one second leaves nine of the ten seconds
 * allowed from an adapter appearing to its scan for opening noble and starting the scan, and keeps
 * a fault that repeats at once (an adapter that fails each open) at one attempt a second.
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
  power: PowerOnRung;
}

interface Waiting {
  kind: 'waiting';
  condition: BleCondition;
}

export function startAdapterRecovery(options: AdapterRecoveryOptions): AdapterRecovery {
  return new RecoveryLadder(options);
}

/** The ladder's rungs, one method each: look, open, watch (listed, address, rfkill), fault, close. */
class RecoveryLadder implements AdapterRecovery {
  readonly #options: AdapterRecoveryOptions;
  readonly #now: MonotonicClock;
  /** By address: the configured one. */
  readonly #wanted: string | undefined;
  readonly #label: string;
  readonly #search: AdapterSearch;
  #phase: Open | Waiting = { kind: 'waiting', condition: { state: 'starting' } };
  #timer: NodeJS.Timeout | undefined;
  /** The adapter went away since it was last open: its next open is a recovery. */
  #faulted = false;
  #reopens = 0;
  /** Restarts counted by the sources of adapters since closed. */
  #retiredRestarts = 0;
  #lastHeardAt: number | undefined;
  #reported: BleCondition = { state: 'starting' };
  #stopped = false;

  constructor(options: AdapterRecoveryOptions) {
    this.#options = options;
    this.#now = options.now ?? monotonicNow;
    this.#wanted = 'address' in options.choice ? options.choice.address : undefined;
    this.#label = adapterLabel(options.choice);
    this.#search = new AdapterSearch(options.choice, options.finder);
    this.#look();
  }

  condition(): BleCondition {
    const phase = this.#phase;
    if (phase.kind === 'waiting') return phase.condition;
    const own = phase.source.condition();
    if (own.state === 'powered-off' && phase.block !== undefined) return blocked(phase.adapter.name, phase.block);
    if (this.#wanted !== undefined && !phase.verified && own.state === 'scanning') return { state: 'starting' };
    return own;
  }

  adapter(): { name: string; address: string | null } | null {
    const phase = this.#phase;
    if (phase.kind !== 'open') return null;
    return { name: phase.adapter.name, address: phase.radio.address() ?? this.#search.addressOf(phase.adapter) ?? null };
  }

  get restarts(): number {
    return this.#reopens + this.#retiredRestarts + (this.#phase.kind === 'open' ? this.#phase.source.restarts : 0);
  }

  lastHeardSeconds(): number | null {
    return secondsSince(latest(this.#lastHeardAt, this.#phase.kind === 'open' ? this.#phase.source.lastHeardAt : undefined), this.#now());
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#close();
  }

  /** Every state is logged here, as the ladder makes it of the source's (which tells it, not logs it). */
  readonly #report = (): void => {
    const phase = this.#phase;
    if (phase.kind === 'open' && phase.source.condition().state === 'scanning') phase.power.up();
    const next = this.condition();
    if (next.state === this.#reported.state && next.reason === this.#reported.reason) return;
    this.#reported = next;
    logBleState(this.#options.logger, next, phase.kind === 'open' ? phase.adapter.name : this.#label);
  };

  #schedule(ms: number, step: () => void): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(step, ms);
    this.#timer.unref();
  }

  #wait(next: BleCondition, ms: number): void {
    this.#phase = { kind: 'waiting', condition: next };
    this.#report();
    this.#schedule(ms, this.#look);
  }

  #absent(): BleCondition {
    return {
      state: 'unavailable',
      reason: `no adapter ${this.#label} (${this.#faulted ? 'it went away' : 'not present'}); waiting for it: check \`bluetoothctl list\`, and on a Raspberry Pi \`systemctl status hciuart\``,
    };
  }

  /** Rung: look for the adapter; open it when the kernel lists it. */
  readonly #look = (): void => {
    if (this.#stopped) return;
    const adapter = this.#search.next();
    if (adapter === undefined) return this.#wait(this.#absent(), ADAPTER_POLL_MS);
    this.#open(adapter);
  };

  /** Rung: open a fresh noble on the adapter, and ask the kernel to power it on. */
  #open(adapter: FoundAdapter): void {
    const options = this.#options;
    const result = openAdapter(adapter, {
      openRadio: options.openRadio,
      source: options.source,
      now: this.#now,
      onSocketError: (radio, error) => this.#socketError(radio, error),
      onCondition: this.#report,
    });
    if (!result.opened) return result.absent ? this.#wait(this.#absent(), ADAPTER_POLL_MS) : this.#wait(result.condition, REOPEN_UNUSABLE_MS);
    const power = powerOnRung({ adapter, powerOn: options.powerOn, logger: options.logger });
    const opened: Open = { kind: 'open', adapter, radio: result.radio, source: result.source, verified: this.#search.fits(adapter), block: undefined, power };
    this.#phase = opened;
    // At once: the kernel powers a new adapter off two seconds after its setup unless asked. Only
    // for an adapter the kernel lists: without sysfs there is no kernel of that kind to ask.
    if (options.finder.adapters() !== null) power.ask();
    if (this.#faulted) {
      this.#reopens += 1;
      this.#faulted = false;
      options.logger.info({ adapter: adapter.name }, 'BLE adapter opened again');
    }
    this.#report();
    this.#schedule(PRESENCE_POLL_MS, this.#watch);
  }

  /** Rung: watch the open adapter: still listed, the configured one, blocked or not. */
  readonly #watch = (): void => {
    if (this.#stopped || this.#phase.kind !== 'open') return;
    const current = this.#phase;
    const listed = this.#options.finder.adapters();
    if (listed !== null && !listed.some((a) => a.name === current.adapter.name)) return this.#fault(`${current.adapter.name} is no longer listed by the kernel`);
    if (!this.#verifyAddress(current)) {
      this.#close();
      return this.#look();
    }
    this.#followRfkill(current);
    this.#report();
    this.#schedule(PRESENCE_POLL_MS, this.#watch);
  };

  /** By address: false once the open adapter's own address is read and is not the configured one. */
  #verifyAddress(current: Open): boolean {
    if (this.#wanted === undefined || current.verified) return true;
    const address = current.radio.address();
    if (address === undefined) return true;
    this.#search.learn(current.adapter, address);
    if (this.#search.fits(current.adapter)) return (current.verified = true);
    // Not ours: another adapter, tried because its address could not be read before opening.
    this.#options.logger.info({ adapter: current.adapter.name, address, wanted: this.#wanted }, 'not the configured adapter; looking further');
    return false;
  }

  /** An adapter seen down is blocked or not, by rfkill; lifted, nothing but the ladder powers it on again. */
  #followRfkill(current: Open): void {
    const wasBlocked = current.block !== undefined;
    current.block = current.source.condition().state === 'powered-off' ? this.#options.finder.rfkill(current.adapter.name) : undefined;
    if (wasBlocked && current.block === undefined) current.power.ask();
  }

  #socketError(radio: NobleRadio, error: Error & { code?: string }): void {
    const code = errorCode(error);
    if (code === undefined || !GONE.has(code)) return;
    // Raised inside the socket's own callback: the radio is closed once that has returned.
    setImmediate(() => {
      if (this.#phase.kind === 'open' && this.#phase.radio === radio) this.#fault(`the HCI socket failed: ${code}`);
    });
  }

  /** Rung: the adapter went away: close it, look for it again. */
  #fault(why: string): void {
    if (this.#phase.kind !== 'open') return;
    this.#options.logger.warn({ adapter: this.#phase.adapter.name, why }, 'the BLE adapter went away; waiting for it to come back');
    this.#close();
    this.#faulted = true;
    this.#wait(this.#absent(), ADAPTER_POLL_MS);
  }

  #close(): void {
    const phase = this.#phase;
    if (phase.kind !== 'open') return;
    phase.power.stop();
    this.#retiredRestarts += phase.source.restarts;
    this.#lastHeardAt = latest(this.#lastHeardAt, phase.source.lastHeardAt);
    try {
      phase.source.stop();
    } catch (error) {
      this.#options.logger.debug({ error: messageOf(error) }, 'closing the BLE adapter failed; it is gone anyway');
    }
    this.#phase = { kind: 'waiting', condition: { state: 'starting' } };
  }
}

function latest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
