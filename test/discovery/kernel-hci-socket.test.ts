import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kernelHciSocketClass, type KernelHciSocketClass } from '../../src/discovery/kernel-hci-socket.js';

// The HCI module's socket behind the contract noble is written against (kernel-hci-socket.ts), over
// a stand-in module that fails as @stoprocent/bluetooth-hci-socket's Node-API build does: it emits
// a failure to open its socket with an errno and no code, and throws strerror's words alone from a
// failed bind. The real module is loaded in every Node by test/packaging/node-api.test.ts.

const MODULE_STAND_IN = `
const { EventEmitter } = require('node:events');
const failures = {};
const calls = [];
function emitted(socket, syscall) {
  const errno = failures[syscall];
  if (errno === undefined) return false;
  const error = new Error('stand-in failure');
  error.syscall = syscall;
  error.errno = errno;
  socket.emit('error', error);
  return true;
}
function thrown(syscall) {
  if (failures[syscall] !== undefined) throw new Error(failures[syscall]);
}
class BluetoothHciSocket {
  getDeviceList() { calls.push('getDeviceList'); return emitted(this, 'socket') ? [] : [{ devId: 0, devUp: true }]; }
  bindRaw(devId) { calls.push('bindRaw'); thrown('bindRaw'); return devId; }
  bindUser(devId) { calls.push('bindUser'); thrown('bindUser'); return devId; }
  bindControl() { calls.push('bindControl'); }
  isDevUp() { return true; }
  setFilter() {}
  start() { calls.push('start'); }
  stop() { calls.push('stop'); }
  write(packet) { calls.push('write'); emitted(this, 'write'); }
  cleanup() {}
}
for (const key in EventEmitter.prototype) BluetoothHciSocket.prototype[key] = EventEmitter.prototype[key];
// The mark of the build with panic-pair's descriptor fix (scripts/hci-module.mjs).
BluetoothHciSocket.closesItsSocketOnce = true;
module.exports = BluetoothHciSocket;
module.exports.failures = failures;
module.exports.calls = calls;
`;

const dir = mkdtempSync(path.join(tmpdir(), 'kernel-hci-socket-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'index.cjs');
writeFileSync(file, MODULE_STAND_IN);
const module = createRequire(file)(file) as { failures: Record<string, number | string | undefined>; calls: string[] };
const HciSocket: KernelHciSocketClass = kernelHciSocketClass(file);

function fresh(failures: Record<string, number | string> = {}): void {
  for (const key of Object.keys(module.failures)) delete module.failures[key];
  Object.assign(module.failures, failures);
  module.calls.length = 0;
}

describe("the HCI module's socket keeps the contract noble is written against", () => {
  it('throws the failure to open the socket from the constructor, with its code, as loading noble expects', () => {
    fresh({ socket: 97 });
    expect(() => new HciSocket()).toThrow(expect.objectContaining({ code: 'EAFNOSUPPORT', errno: 97 }));
  });

  it('gives a failed bind the code noble and the daemon read (EPERM: no capability; ENODEV: no adapter)', () => {
    fresh();
    const socket = new HciSocket();
    expect(socket.bindRaw(0)).toBe(0);
    module.failures.bindRaw = 'Operation not permitted';
    expect(() => socket.bindRaw(0)).toThrow(expect.objectContaining({ code: 'EPERM', message: 'Operation not permitted' }));
    module.failures.bindUser = 'No such device';
    expect(() => socket.bindUser(1)).toThrow(expect.objectContaining({ code: 'ENODEV' }));
    // Words it does not know are left as they are.
    module.failures.bindRaw = 'Something else';
    expect(() => socket.bindRaw(0)).toThrow(expect.not.objectContaining({ code: expect.anything() }));
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
    (socket as unknown as { emit(event: string, packet: Buffer): boolean }).emit('data', Buffer.from([4, 14]));
    expect(data).toEqual([Buffer.from([4, 14])]);
  });

  it('reads once: a second start (noble powering the adapter back on) does not restart the reader', () => {
    fresh();
    const socket = new HciSocket();
    socket.start();
    socket.start();
    expect(module.calls.filter((call) => call === 'start')).toHaveLength(1);
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
    expect(module.calls.filter((call) => call === 'start')).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ code: 'EBADF' })]);
    socket.stop();
  });
});
