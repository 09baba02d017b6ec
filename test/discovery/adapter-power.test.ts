import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { powerOn, type ControlSocket } from '../../src/discovery/adapter-power.js';

// Set Powered through the management interface: the command as `btmgmt power on` writes it, and
// the kernel's answer read back; no failure of the socket escapes.

class FakeControl extends EventEmitter implements ControlSocket {
  written: Buffer[] = [];
  bound = false;
  stopped = false;
  constructor(private readonly answer?: (command: Buffer) => Buffer, private readonly refuseBind = false) {
    super();
  }
  bindControl(): void {
    if (this.refuseBind) throw Object.assign(new Error('Operation not permitted'), { code: 'EPERM' });
    this.bound = true;
  }
  start(): void {}
  stop(): void {
    this.stopped = true;
  }
  write(packet: Buffer): void {
    this.written.push(packet);
    const reply = this.answer?.(packet);
    if (reply !== undefined) setImmediate(() => this.emit('data', reply));
  }
}

/** Command Complete (0x0001) for `index`, opcode 0x0005, with `status`. */
const complete = (index: number, status: number) => Buffer.from([0x01, 0x00, index, 0x00, 0x03, 0x00, 0x05, 0x00, status]);

describe('powerOn (mgmt Set Powered)', () => {
  it('writes Set Powered for the index on the control channel, and reads success', async () => {
    const socket = new FakeControl(() => complete(2, 0));
    expect(await powerOn(2, () => socket)).toEqual({ ok: true });
    expect(socket.bound).toBe(true);
    expect(socket.written).toEqual([Buffer.from([0x05, 0x00, 0x02, 0x00, 0x01, 0x00, 0x01])]);
    expect(socket.stopped).toBe(true);
  });

  it('says why the kernel refused, ignoring other adapters\' answers', async () => {
    const socket = new FakeControl(() => complete(0, 0x12));
    setImmediate(() => socket.emit('data', complete(1, 0)));
    expect(await powerOn(0, () => socket)).toEqual({ ok: false, reason: 'blocked by rfkill', retry: false });
  });

  it('an adapter still in its setup (invalid index, busy) is worth asking again; rfkill and permissions are not', async () => {
    expect(await powerOn(0, () => new FakeControl(() => complete(0, 0x11)))).toEqual({ ok: false, reason: 'invalid index', retry: true });
    expect(await powerOn(0, () => new FakeControl(() => complete(0, 0x0a)))).toEqual({ ok: false, reason: 'busy', retry: true });
    expect(await powerOn(0, () => new FakeControl(() => complete(0, 0x14)))).toEqual({ ok: false, reason: 'permission denied', retry: false });
  });

  it('never throws: a refused socket is an answer', async () => {
    expect(await powerOn(0, () => new FakeControl(undefined, true))).toEqual({ ok: false, reason: 'Operation not permitted', retry: false });
    expect(await powerOn(0, () => {
      throw new Error('the HCI module is missing');
    })).toEqual({ ok: false, reason: 'the HCI module is missing', retry: false });
  });
});
