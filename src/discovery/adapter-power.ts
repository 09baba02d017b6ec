import { messageOf } from '../errors.js';
import { kernelHciSocket } from './noble-loader.js';

// Powering an adapter on through the kernel's Bluetooth management interface, as `btmgmt power on`
// and bluetoothd do: one Set Powered command on a control-channel socket of the HCI module. noble
// cannot power an adapter on, and without bluetoothd nothing else does: the kernel powers a new
// adapter off again two seconds after its setup when nobody asked for it (HCI_AUTO_OFF), and leaves
// one down after an rfkill unblock. Needs CAP_NET_ADMIN, which the unit grants.

const MGMT_OP_SET_POWERED = 0x0005;
const MGMT_EV_CMD_COMPLETE = 0x0001;
const MGMT_EV_CMD_STATUS = 0x0002;
/** The management interface's status words for the codes Set Powered answers with. */
const STATUS: Record<number, string> = { 0: 'success', 0x0a: 'busy', 0x0d: 'invalid parameters', 0x11: 'invalid index', 0x12: 'blocked by rfkill', 0x14: 'permission denied' };
/** The kernel answers at once; a socket with no answer by then is closed and the attempt counted failed. */
const ANSWER_TIMEOUT_MS = 3_000;

/** The HCI module's socket as used here: its control channel. */
export interface ControlSocket {
  bindControl(): void;
  start(): void;
  stop(): void;
  write(packet: Buffer): void;
  on(event: 'data', listener: (packet: Buffer) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

/**
 * What the kernel answered: `success`, or why not, and whether asking again can help. An adapter in
 * its setup answers "invalid index" or "busy" until it is ready; an rfkill block or a refused
 * permission stays until a person acts.
 */
export type PowerAnswer = { ok: true } | { ok: false; reason: string; retry: boolean };

/** The answers only a person can change: asking again would get the same. */
const NEEDS_A_PERSON = /rfkill|permission|EPERM|EACCES|not permitted|module is missing/i;

export function refusal(reason: string): PowerAnswer {
  return { ok: false, reason, retry: !NEEDS_A_PERSON.test(reason) };
}

/** The HCI module noble loads, opened afresh: a socket to bind to the control channel. */
export function moduleControlSocket(): ControlSocket {
  const SocketClass = kernelHciSocket() as unknown as new () => ControlSocket;
  return new SocketClass();
}

/** Asks the kernel to power adapter `index` on. Never throws: the answer says what happened. */
export function powerOn(index: number, open: () => ControlSocket = moduleControlSocket): Promise<PowerAnswer> {
  return new Promise((resolve) => {
    let socket: ControlSocket | undefined;
    let settled = false;
    const finish = (answer: PowerAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        socket?.stop();
      } catch {
        // closing is best effort
      }
      resolve(answer);
    };
    const timer = setTimeout(() => finish(refusal(`no answer within ${ANSWER_TIMEOUT_MS / 1000} s`)), ANSWER_TIMEOUT_MS);
    timer.unref();
    try {
      socket = open();
      socket.on('error', (error) => finish(refusal(messageOf(error))));
      socket.on('data', (packet) => {
        // event (2), index (2), length (2), then the command's opcode (2) and status (1)
        if (packet.length < 9) return;
        const event = packet.readUInt16LE(0);
        if ((event !== MGMT_EV_CMD_COMPLETE && event !== MGMT_EV_CMD_STATUS) || packet.readUInt16LE(2) !== index || packet.readUInt16LE(6) !== MGMT_OP_SET_POWERED) return;
        const status = packet[8]!;
        finish(status === 0 ? { ok: true } : refusal(STATUS[status] ?? `status 0x${status.toString(16)}`));
      });
      socket.bindControl();
      socket.start();
      const command = Buffer.alloc(7);
      command.writeUInt16LE(MGMT_OP_SET_POWERED, 0);
      command.writeUInt16LE(index, 2);
      command.writeUInt16LE(1, 4);
      command[6] = 1;
      socket.write(command);
    } catch (error) {
      finish(refusal(messageOf(error)));
    }
  });
}
