'use strict';
// The package's HCI socket: @stoprocent/bluetooth-hci-socket's Node-API build, which loads in
// every Node from 20.17 on, behind the contract of @abandonware/bluetooth-hci-socket that noble
// and panic-pair are written against. The package installs this file as that module's
// lib/native.js (packaging/deb/build.mjs); a source install keeps @abandonware's own, compiled on
// the hub for its Node.
//
// Where the two differ, and what this file restores:
// - @abandonware throws an errno error (with its `code`, e.g. EAFNOSUPPORT, EPERM) from the
//   constructor and from bind*; the Node-API build emits 'error' without a `code` and returns.
//   noble tells "unauthorized" by `code === 'EPERM'`, and panic-pair says why BLE is off by it.
// - The Node-API build closes its descriptor when its reading thread stops, and a later start()
//   would read the closed (or a reused) descriptor. noble calls start() again when the adapter
//   is powered on after being off; the socket is already reading then, so that start() only
//   renews the clean-up timer here. A start() after stop() reports EBADF instead of reading.
const { EventEmitter } = require('node:events');
const { getSystemErrorName } = require('node:util');
// Without its extension: the package holds only the .node file; a test puts a .js stand-in there.
const { BluetoothHciSocket: NativeSocket } = require('../build/Release/bluetooth_hci_socket');

for (const key in EventEmitter.prototype) NativeSocket.prototype[key] = EventEmitter.prototype[key];

/** An error the native part made, given the `code` Node's own errno errors carry. */
function withCode(error) {
  if (error instanceof Error && error.code === undefined && Number.isInteger(error.errno) && error.errno > 0) {
    try {
      error.code = getSystemErrorName(-error.errno);
    } catch {
      // an errno this platform has no name for: the message still says it
    }
  }
  return error;
}

const CLEANUP_MS = 60 * 1000;

class BluetoothHciSocket extends NativeSocket {
  /** While a call that @abandonware throws from runs: the first error it emitted. */
  #calling = false;
  #thrown = undefined;
  #reading = false;
  #stopped = false;
  #timer = undefined;

  constructor() {
    super();
    // @abandonware opens the socket here: without Bluetooth, loading noble is what fails.
    this.#throwing(() => super.getDeviceList());
  }

  emit(event, ...args) {
    if (event !== 'error') return super.emit(event, ...args);
    const error = withCode(args[0]);
    if (this.#calling) {
      this.#thrown ??= error;
      return true;
    }
    return super.emit('error', error);
  }

  #throwing(call) {
    this.#calling = true;
    this.#thrown = undefined;
    let result;
    try {
      result = call();
    } finally {
      this.#calling = false;
    }
    if (this.#thrown !== undefined) throw this.#thrown;
    return result;
  }

  bindRaw(...args) {
    return this.#throwing(() => super.bindRaw(...args));
  }

  bindUser(...args) {
    return this.#throwing(() => super.bindUser(...args));
  }

  bindControl(...args) {
    return this.#throwing(() => super.bindControl(...args));
  }

  start() {
    clearInterval(this.#timer);
    // Connections that never completed are dropped each minute, as @abandonware does.
    this.#timer = setInterval(() => this.cleanup(), CLEANUP_MS);
    this.#timer.unref();
    if (this.#stopped) {
      const error = Object.assign(new Error('the HCI socket was stopped; open a new one'), { code: 'EBADF', syscall: 'start' });
      this.emit('error', error);
      return undefined;
    }
    if (this.#reading) return undefined;
    this.#reading = true;
    return super.start();
  }

  stop() {
    clearInterval(this.#timer);
    if (this.#reading) this.#stopped = true;
    this.#reading = false;
    return super.stop();
  }
}

module.exports = BluetoothHciSocket;
