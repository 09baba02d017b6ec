import Module, { createRequire } from 'node:module';

// The one place that knows noble's inside. noble is native and opens the HCI socket as it is
// constructed, so it is loaded only when BLE is wanted, here. For capture replay and tests the
// socket is the VirtualHciSocket: noble's own hci-socket modules are loaded afresh with it in
// place of @abandonware/bluetooth-hci-socket, so every report goes through noble's own HCI and GAP
// parsing and the process-wide module cache is left as it was.
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
  removeAllListeners(): unknown;
  startScanning(serviceUuids: string[], allowDuplicates: boolean, callback?: (error?: Error | null) => void): void;
  stopScanning(callback?: () => void): void;
}

/** The socket methods noble calls; VirtualHciSocket has them all. */
export interface HciSocket {
  bindRaw(deviceId?: number): number;
  bindUser(deviceId?: number): number;
  start(): void;
  stop(): void;
  setFilter(filter: Buffer): void;
  isDevUp(): boolean;
  write(packet: Buffer): void;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
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
}

type Dictionary = Record<string, unknown>;

interface HciInternals {
  pollIsDevUp(): void;
  _socket?: { stop?: () => void };
}

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
  const Bindings = options.socket === undefined ? (require(BINDINGS) as BindingsConstructor) : bindingsOver(options.socket);
  const bindings = new Bindings({ deviceId: options.hciDevice });
  // noble prints its advice for these states with console.log, on stdout, which is the daemon's
  // JSON log stream; the same transition without the print (the BLE source says it in words).
  bindings.onStateChange = function onStateChange(state: AdapterState): void {
    if (this._state === state) return;
    this._state = state;
    this.emit('stateChange', state);
  };
  const Noble = require(NOBLE) as NobleConstructor;
  const noble = new Noble(bindings);
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
      bindings._hci.pollIsDevUp = () => undefined;
      bindings._hci._socket?.stop?.();
      for (const { event, listener } of added.splice(0)) {
        if (event === 'exit') process.removeListener('exit', listener);
        else process.removeListener('SIGINT', listener);
      }
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

/** noble's hci-socket bindings loaded afresh, with `socket` where the kernel's HCI socket would be. */
function bindingsOver(socket: HciSocket): BindingsConstructor {
  const bindingsPath = require.resolve(BINDINGS);
  const hciPath = require.resolve(HCI);
  let socketPath: string;
  try {
    socketPath = createRequire(hciPath).resolve(HCI_SOCKET);
  } catch {
    throw new Error(`${HCI_SOCKET} (installed with noble) is missing; noble's HCI layer cannot be loaded without it`);
  }
  const saved = new Map([bindingsPath, hciPath, socketPath].map((file) => [file, require.cache[file]] as const));
  const standIn = new Module(socketPath);
  standIn.filename = socketPath;
  standIn.loaded = true;
  // noble constructs the socket with `new`; a constructor that returns an object yields that object.
  standIn.exports = function HciSocketStandIn(): HciSocket {
    return socket;
  };
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
