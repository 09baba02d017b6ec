import Module, { createRequire } from 'node:module';
import { advertisingReportProblem, isAdvertisingReport } from './advertising-report.js';
import { kernelHciSocketClass, type HciSocket, type KernelHciSocketClass } from './kernel-hci-socket.js';

// The one place that knows noble's inside. noble opens the HCI socket as it is constructed, so it
// is loaded only when BLE is wanted, here. noble's own hci-socket modules are loaded afresh with
// the HCI socket given here in place of the module it requires, @abandonware/bluetooth-hci-socket
// (where package.json's `overrides` installs the Node-API module): the kernel's, through
// kernel-hci-socket.ts, or for capture replay and tests a VirtualHciSocket. Every report goes
// through noble's own HCI and GAP parsing, and the process-wide module cache is left as it was.
//
// noble 1.9.2 has no close and no way to bound its per-device memory; the few private fields used
// for that are named in the interfaces below, and each use is guarded.

const require = createRequire(import.meta.url);
const NOBLE = '@abandonware/noble/lib/noble.js';
const BINDINGS = '@abandonware/noble/lib/hci-socket/bindings.js';
const HCI = '@abandonware/noble/lib/hci-socket/hci.js';
const HCI_SOCKET = '@abandonware/bluetooth-hci-socket';

export type AdapterState = 'unknown' | 'resetting' | 'unsupported' | 'unauthorized' | 'poweredOff' | 'poweredOn';

/** What noble's GAP layer has gathered for one device, scan responses merged in. */
export interface NobleAdvertisement {
  localName?: string;
  serviceUuids?: readonly string[];
  serviceData?: ReadonlyArray<{ uuid: string; data: Buffer }>;
  manufacturerData?: Buffer;
}

export interface NoblePeripheral {
  /** Lower-case, colon-separated, e.g. `c4:64:9f:5e:94:54`. */
  address: string;
  rssi: number;
  advertisement: NobleAdvertisement;
}

export interface Noble {
  on(event: 'stateChange', listener: (state: AdapterState) => void): unknown;
  on(event: 'discover', listener: (peripheral: NoblePeripheral) => void): unknown;
  on(event: 'scanStart' | 'scanStop', listener: () => void): unknown;
  on(event: 'warning', listener: (message: string) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  removeAllListeners(): unknown;
  startScanning(serviceUuids: string[], allowDuplicates: boolean, callback?: (error?: Error | null) => void): void;
  stopScanning(callback?: () => void): void;
}

export interface NobleRadio {
  readonly noble: Noble;
  /** Binds the adapter and starts noble's state machine; attach listeners first. Throws what the socket throws. */
  open(): void;
  /** Stops scanning and noble's adapter polling, and removes its process handlers. */
  close(): void;
  /** Devices noble holds in memory (each address ever heard). */
  knownDevices(): number;
  /** Drops what noble remembers of devices; the next report of each starts afresh. */
  forgetDevices(): void;
  /** The adapter's address as its controller reported it (Read BD ADDR), upper case; undefined until then. */
  address(): string | undefined;
  /** Radio events noble itself drops (see RadioEvents); the one listener of each, replaced by a later call. */
  listen(events: RadioEvents): void;
}

/** What noble 1.9.2 swallows, surfaced for the recovery ladder (adapter-recovery.ts). */
export interface RadioEvents {
  /** An error of the HCI socket: ENODEV, EPIPE or EBADFD say the adapter is gone from under it. */
  socketError?(error: Error & { code?: string }): void;
  /** The controller was reset (HCI Reset completed), by anyone: its scan is off now, though noble still says it scans. */
  controllerReset?(): void;
  /** A packet noble's parser threw on; dropped, so that it never reaches the native socket's callback. */
  malformed?(error: unknown): void;
}

type Dictionary = Record<string, unknown>;

interface HciInternals {
  pollIsDevUp(): void;
  onSocketError(error: Error & { code?: string }): void;
  onSocketData(data: Buffer): void;
  processCmdCompleteEvent(cmd: number, status: number, result: Buffer): void;
  _socket?: { stop?: () => void; isDevUp?: () => boolean };
  /** What noble's poll saw last: the adapter up, down, or not looked at yet (null). */
  _isDevUp: boolean | null;
  _state: AdapterState | null;
}

/** HCI Reset's opcode (OGF 0x03, OCF 0x0003). */
const HCI_RESET = 0x0c03;

interface BindingsInternals {
  _state: AdapterState | null;
  _hci: HciInternals;
  _gap?: { _discoveries?: Dictionary };
  _addresses?: Dictionary;
  _addresseTypes?: Dictionary;
  _connectable?: Dictionary;
  scannable?: Dictionary;
  onSigIntBinded?: () => void;
  init(): void;
  onStateChange(state: AdapterState): void;
  emit(event: string, ...args: unknown[]): boolean;
}

interface NobleInternals extends Noble {
  initialized: boolean;
  address?: string;
  _peripherals: Dictionary;
  _services: Dictionary;
  _characteristics: Dictionary;
  _descriptors: Dictionary;
  _discoveredPeripheralUUids: Dictionary;
}

type BindingsConstructor = new (options: { deviceId: number }) => BindingsInternals;
type NobleConstructor = new (bindings: BindingsInternals) => NobleInternals;

/**
 * noble on adapter `hciDevice`, or on `socket` instead of the kernel's. Loading fails (and throws
 * the socket's error, e.g. EAFNOSUPPORT without Bluetooth, EPERM without the capabilities) when
 * the HCI socket cannot be opened.
 */
export function loadNoble(options: { hciDevice: number; socket?: HciSocket }): NobleRadio {
  const Bindings = bindingsOver(options.socket === undefined ? kernelHciSocket() : standInFor(options.socket));
  const bindings = new Bindings({ deviceId: options.hciDevice });
  // noble prints its advice for these states with console.log, on stdout, which is the daemon's
  // JSON log stream; the same transition without the print (the BLE source says it in words).
  bindings.onStateChange = function onStateChange(state: AdapterState): void {
    if (this._state === state) return;
    this._state = state;
    this.emit('stateChange', state);
  };
  // noble's Hci binds these by name as it starts (init), so instance methods put in place before
  // then are the ones the socket calls.
  let events: RadioEvents = {};
  const hci = bindings._hci;
  const { onSocketError, onSocketData, processCmdCompleteEvent } = hci;
  hci.onSocketError = function socketError(error) {
    onSocketError.call(this, error);
    events.socketError?.(error);
  };
  hci.onSocketData = function socketData(data) {
    // noble would catch a report whose lengths lie and only print a warning: dropped and counted
    // here instead (found by the hci fuzz target, test/fuzz/hci/).
    const problem = isAdvertisingReport(data) ? advertisingReportProblem(data) : undefined;
    if (problem !== undefined) {
      events.malformed?.(new Error(`an advertising report ${problem}`));
      return;
    }
    try {
      onSocketData.call(this, data);
    } catch (error) {
      events.malformed?.(error);
    }
  };
  hci.processCmdCompleteEvent = function commandComplete(cmd, status, result) {
    processCmdCompleteEvent.call(this, cmd, status, result);
    if (cmd === HCI_RESET && status === 0) events.controllerReset?.();
  };
  // noble says poweredOn from the commands it sees complete on the adapter, the kernel's own
  // power-on sequence included, and says poweredOff only when its one-second poll sees the adapter
  // go from up to down. An adapter powered on after being off is thus poweredOn before the poll has
  // seen it up; switched off again before that poll (an rfkill block right after a power on, in
  // the kernel bench), it was never seen going down: noble stayed poweredOn for good over an
  // adapter that was off. Here the poll counts such an adapter as seen up, so that it sees it go down.
  const { pollIsDevUp } = hci;
  hci.pollIsDevUp = function poll() {
    if (this._isDevUp === false && this._state === 'poweredOn' && this._socket?.isDevUp?.() === false) this._isDevUp = true;
    pollIsDevUp.call(this);
  };
  const Noble = require(NOBLE) as NobleConstructor;
  const noble = new Noble(bindings);
  // An 'error' event without a listener would be thrown; noble's are warnings to the BLE source.
  noble.on('error', (error) => events.malformed?.(error));
  // Stopping a scan this process never started would stop another's on the same adapter.
  let scanned = false;
  noble.on('scanStart', () => (scanned = true));
  // Initialised by open(), synchronously, rather than on noble's next tick, so that its errors
  // reach the caller and its process handlers can be removed again by close().
  noble.initialized = true;
  const added: Array<{ event: 'exit' | 'SIGINT'; listener: (...args: unknown[]) => void }> = [];

  return {
    noble,
    open() {
      const listeners = (): Array<{ event: 'exit' | 'SIGINT'; listener: (...args: unknown[]) => void }> => [
        ...process.listeners('exit').map((listener) => ({ event: 'exit' as const, listener: listener as (...args: unknown[]) => void })),
        ...process.listeners('SIGINT').map((listener) => ({ event: 'SIGINT' as const, listener: listener as (...args: unknown[]) => void })),
      ];
      const before = new Set(listeners().map((entry) => entry.listener));
      try {
        bindings.init();
      } finally {
        added.push(...listeners().filter((entry) => !before.has(entry.listener)));
      }
      // noble's SIGINT handler exits the process when it is the last one; the daemon's own
      // handler settles in-flight work first, so noble's is taken away.
      for (const { event, listener } of added) if (event === 'SIGINT') process.removeListener('SIGINT', listener);
    },
    close() {
      try {
        if (scanned) noble.stopScanning();
      } catch {
        // the adapter may already be gone
      }
      noble.removeAllListeners();
      noble.on('error', () => undefined);
      events = {};
      bindings._hci.pollIsDevUp = () => undefined;
      bindings._hci._socket?.stop?.();
      for (const { event, listener } of added.splice(0)) {
        if (event === 'exit') process.removeListener('exit', listener);
        else process.removeListener('SIGINT', listener);
      }
    },
    address: () => (typeof noble.address === 'string' && noble.address !== 'unknown' ? noble.address.toUpperCase() : undefined),
    listen(next) {
      events = next;
    },
    knownDevices: () => Object.keys(noble._peripherals).length,
    forgetDevices() {
      noble._peripherals = {};
      noble._services = {};
      noble._characteristics = {};
      noble._descriptors = {};
      noble._discoveredPeripheralUUids = {};
      if (bindings._gap?._discoveries !== undefined) bindings._gap._discoveries = {};
      for (const key of ['_addresses', '_addresseTypes', '_connectable', 'scannable'] as const) {
        if (bindings[key] !== undefined) bindings[key] = {};
      }
    },
  };
}

let kernelSocketClass: KernelHciSocketClass | undefined;

/**
 * The kernel's HCI socket class (kernel-hci-socket.ts over the module noble requires), made once:
 * for each noble the ladder opens and each power-on it asks. Throws, and is tried again next time,
 * while the module is missing or not the fixed build.
 */
export function kernelHciSocket(): KernelHciSocketClass {
  kernelSocketClass ??= kernelHciSocketClass(hciSocketFile());
  return kernelSocketClass;
}

/** The HCI module's main file, as noble's HCI layer resolves it; throws MODULE_NOT_FOUND naming it when it is missing. */
export function hciSocketFile(): string {
  return createRequire(require.resolve(HCI)).resolve(HCI_SOCKET);
}

/** A class whose `new` gives `socket`: a constructor that returns an object yields that object. */
function standInFor(socket: HciSocket): new () => HciSocket {
  return function HciSocketStandIn(): HciSocket {
    return socket;
  } as unknown as new () => HciSocket;
}

/** noble's hci-socket bindings loaded afresh, with `HciSocketClass` where noble's HCI module would be. */
function bindingsOver(HciSocketClass: new () => HciSocket): BindingsConstructor {
  const bindingsPath = require.resolve(BINDINGS);
  const hciPath = require.resolve(HCI);
  let socketPath: string;
  try {
    socketPath = hciSocketFile();
  } catch {
    // Only replay and tests get here: without the module, kernelHciSocketClass has thrown already.
    throw new Error(`${HCI_SOCKET} (installed with noble) is missing; noble's HCI layer cannot be loaded without it`);
  }
  const saved = new Map([bindingsPath, hciPath, socketPath].map((file) => [file, require.cache[file]] as const));
  const standIn = new Module(socketPath);
  standIn.filename = socketPath;
  standIn.loaded = true;
  standIn.exports = HciSocketClass;
  try {
    delete require.cache[bindingsPath];
    delete require.cache[hciPath];
    require.cache[socketPath] = standIn;
    return require(bindingsPath) as BindingsConstructor;
  } finally {
    for (const [file, module] of saved) {
      if (module === undefined) delete require.cache[file];
      else require.cache[file] = module;
    }
  }
}
