import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The package's HCI socket file (packaging/deb/hci-socket.cjs) over a stand-in for the Node-API
// build that behaves as @stoprocent/bluetooth-hci-socket's does: it emits its errors with an
// errno and no code, and returns. The real build is loaded by the .deb test in a Debian 13
// container, where the kernel refuses Bluetooth sockets, and `check` says so.

const ROOT = path.resolve(import.meta.dirname, '..', '..');

const NATIVE_STAND_IN = `
const failures = {};
const calls = [];
function fail(socket, syscall) {
  const errno = failures[syscall];
  if (errno === undefined) return false;
  const error = new Error('stand-in failure');
  error.syscall = syscall;
  error.errno = errno;
  socket.emit('error', error);
  return true;
}
class BluetoothHciSocket {
  getDeviceList() { calls.push('getDeviceList'); return fail(this, 'getDeviceList') ? [] : [{ devId: 0, devUp: true }]; }
  bindRaw(devId) { calls.push('bindRaw'); return fail(this, 'bindRaw') ? undefined : devId; }
  bindUser(devId) { calls.push('bindUser'); return fail(this, 'bindUser') ? undefined : devId; }
  bindControl() { calls.push('bindControl'); fail(this, 'bindControl'); }
  isDevUp() { return true; }
  setFilter() {}
  start() { calls.push('start'); }
  stop() { calls.push('stop'); }
  write(packet) { calls.push('write'); fail(this, 'write'); }
  cleanup() {}
}
module.exports = { BluetoothHciSocket, failures, calls };
`;

interface Socket {
  bindRaw(devId: number): number | undefined;
  bindUser(devId: number): number | undefined;
  start(): void;
  stop(): void;
  write(packet: Buffer): void;
  emit(event: string, ...args: unknown[]): boolean;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}
interface StandIn {
  failures: Record<string, number | undefined>;
  calls: string[];
}

let dir: string;
let HciSocket: new () => Socket;
let native: StandIn;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hci-socket-'));
  mkdirSync(path.join(dir, 'lib'));
  mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
  copyFileSync(path.join(ROOT, 'packaging', 'deb', 'hci-socket.cjs'), path.join(dir, 'lib', 'native.js'));
  writeFileSync(path.join(dir, 'build', 'Release', 'bluetooth_hci_socket.js'), NATIVE_STAND_IN);
  const require = createRequire(path.join(dir, 'lib', 'native.js'));
  HciSocket = require('./native.js') as new () => Socket;
  native = require('../build/Release/bluetooth_hci_socket') as StandIn;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fresh(failures: Record<string, number> = {}): void {
  for (const key of Object.keys(native.failures)) delete native.failures[key];
  Object.assign(native.failures, failures);
  native.calls.length = 0;
}

describe("the package's HCI socket keeps @abandonware's contract over the Node-API build", () => {
  it('throws the socket error from the constructor, with its code, as loading noble expects', () => {
    fresh({ getDeviceList: 97 });
    expect(() => new HciSocket()).toThrow(expect.objectContaining({ code: 'EAFNOSUPPORT', errno: 97 }));
  });

  it('throws from bindRaw and bindUser with the code noble and the daemon read (EPERM: no capability)', () => {
    fresh();
    const socket = new HciSocket();
    expect(socket.bindRaw(0)).toBe(0);
    native.failures.bindRaw = 1;
    expect(() => socket.bindRaw(0)).toThrow(expect.objectContaining({ code: 'EPERM' }));
    native.failures.bindUser = 19;
    expect(() => socket.bindUser(1)).toThrow(expect.objectContaining({ code: 'ENODEV' }));
  });

  it('gives an error emitted outside those calls to its listeners, with its code, and passes data through', () => {
    fresh({ write: 100 });
    const socket = new HciSocket();
    const errors: unknown[] = [];
    const data: unknown[] = [];
    socket.on('error', (error) => errors.push(error));
    socket.on('data', (packet) => data.push(packet));
    socket.write(Buffer.from([1, 3, 12, 0]));
    expect(errors).toEqual([expect.objectContaining({ code: 'ENETDOWN', syscall: 'write' })]);
    socket.emit('data', Buffer.from([4, 14]));
    expect(data).toEqual([Buffer.from([4, 14])]);
  });

  it('reads once: a second start (noble powering the adapter back on) does not restart the reader', () => {
    fresh();
    const socket = new HciSocket();
    socket.start();
    socket.start();
    expect(native.calls.filter((call) => call === 'start')).toHaveLength(1);
    socket.stop();
  });

  it('after stop, start reports EBADF instead of reading a closed descriptor', () => {
    fresh();
    const socket = new HciSocket();
    const errors: unknown[] = [];
    socket.on('error', (error) => errors.push(error));
    socket.start();
    socket.stop();
    socket.start();
    expect(native.calls.filter((call) => call === 'start')).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ code: 'EBADF' })]);
    socket.stop();
  });
});
