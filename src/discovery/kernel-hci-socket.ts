import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { getSystemErrorName } from 'node:util';

// The kernel's HCI socket, as noble and the daemon are written to use it. Both install paths have
// one HCI module: @stoprocent/bluetooth-hci-socket, built with Node-API (it loads in every Node
// from 20.17 on), installed where noble requires @abandonware/bluetooth-hci-socket (package.json's
// `overrides`). Its class is given here the contract noble was written against, that of
// @abandonware's nan build:
// - Errors thrown with their errno `code` (EAFNOSUPPORT, EPERM, ENODEV ...). The module opens its
//   socket lazily and emits that failure as 'error', with an errno and no code; its bind* calls
//   throw an Error whose message is strerror's text and nothing else. noble tells "unauthorized"
//   by `code === 'EPERM'`, and the daemon says why BLE is off by the code.
// - The constructor opens the socket, so that loading noble is what fails without Bluetooth.
// - The module closes its descriptor when its reading is stopped, so a later start() would read a
//   socket that is no longer bound to the adapter. noble calls start() again when the adapter is
//   powered on after being off; the socket is already reading then, so that start() does nothing
//   here. A start() after stop() reports EBADF instead of reading.
// - Only the build compiled from sources fixed by scripts/hci-module.mjs: the module's own closes
//   a stopped socket's descriptor a second time when the socket is collected, by then someone
//   else's (a control client, the store's file, a descriptor libuv watches: the daemon aborts).
//   That build marks its class (MODULE_FIXED); any other is refused, naming the fix.

/** The module's socket: its native methods, with EventEmitter's mixed into its prototype by the module. */
interface ModuleSocket {
  bindRaw(deviceId?: number): number;
  bindUser(deviceId?: number): number;
  bindControl(): void;
  getDeviceList(): unknown[];
  isDevUp(): boolean;
  setFilter(filter: Buffer): void;
  start(): void;
  stop(): void;
  write(packet: Buffer): void;
  emit(event: string | symbol, ...args: unknown[]): boolean;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

type ModuleSocketClass = new () => ModuleSocket;

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

/** The HCI socket with the contract above: what noble's `new BluetoothHciSocket()` gets. */
export type KernelHciSocketClass = new () => HciSocket & { bindControl(): void; getDeviceList(): unknown[] };

/** strerror's words for the errors an HCI socket's calls give, which the module throws without a code. */
const STRERROR: Record<string, string> = {
  'Address family not supported by protocol': 'EAFNOSUPPORT',
  'Operation not permitted': 'EPERM',
  'Permission denied': 'EACCES',
  'No such device': 'ENODEV',
  'Device or resource busy': 'EBUSY',
  'Network is down': 'ENETDOWN',
  'Operation not possible due to RF-kill': 'ERFKILL',
  'Bad file descriptor': 'EBADF',
  'File descriptor in bad state': 'EBADFD',
  'Broken pipe': 'EPIPE',
};

/** `error` with the `code` (and errno) that Node's own errno errors carry, where the module gave none. */
function withErrnoCode(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const coded = error as NodeJS.ErrnoException;
  if (coded.code !== undefined) return error;
  if (Number.isInteger(coded.errno) && (coded.errno ?? 0) > 0) {
    try {
      coded.code = getSystemErrorName(-(coded.errno ?? 0));
    } catch {
      // an errno this platform has no name for: the message still says it
    }
    return error;
  }
  const code = STRERROR[error.message];
  if (code !== undefined) {
    coded.code = code;
    coded.errno = (constants.errno as Record<string, number | undefined>)[code];
  }
  return error;
}

/** The static property the fixed build (scripts/hci-module.mjs) gives its socket class. */
const MODULE_FIXED = 'closesItsSocketOnce';

/** The error a build without the descriptor fix is refused with (ble-module.ts tells it by its code). */
export const PREBUILT_MODULE = 'ERR_HCI_MODULE_PREBUILT';

/** The class of the module at `file` (resolved as noble resolves it), with the contract above. */
export function kernelHciSocketClass(file: string): KernelHciSocketClass {
  const ModuleSocket = createRequire(file)(file) as ModuleSocketClass & { [MODULE_FIXED]?: unknown };
  if (ModuleSocket[MODULE_FIXED] !== true) {
    throw Object.assign(new Error(`the HCI module at ${file} is a build without panic-pair's descriptor fix`), { code: PREBUILT_MODULE });
  }

  class KernelHciSocket extends ModuleSocket {
    /** While a call that @abandonware's build throws from runs: the first error it emitted. */
    #calling = false;
    #thrown: unknown = undefined;
    #reading = false;
    #stopped = false;

    constructor() {
      super();
      this.#throwing(() => super.getDeviceList());
    }

    override emit(event: string | symbol, ...args: unknown[]): boolean {
      if (event !== 'error') return super.emit(event, ...args);
      const error = withErrnoCode(args[0]);
      if (this.#calling) {
        this.#thrown ??= error;
        return true;
      }
      return super.emit('error', error);
    }

    #throwing<T>(call: () => T): T {
      this.#calling = true;
      this.#thrown = undefined;
      let result: T;
      try {
        result = call();
      } catch (error) {
        throw withErrnoCode(error);
      } finally {
        this.#calling = false;
      }
      if (this.#thrown !== undefined) throw this.#thrown;
      return result;
    }

    override bindRaw(deviceId?: number): number {
      return this.#throwing(() => super.bindRaw(deviceId));
    }

    override bindUser(deviceId?: number): number {
      return this.#throwing(() => super.bindUser(deviceId));
    }

    override bindControl(): void {
      this.#throwing(() => super.bindControl());
    }

    override start(): void {
      if (this.#stopped) {
        this.emit('error', Object.assign(new Error('the HCI socket was stopped; open a new one'), { code: 'EBADF', syscall: 'start' }));
        return;
      }
      if (this.#reading) return;
      this.#reading = true;
      super.start();
    }

    override stop(): void {
      if (this.#reading) this.#stopped = true;
      this.#reading = false;
      super.stop();
    }
  }
  return KernelHciSocket;
}
