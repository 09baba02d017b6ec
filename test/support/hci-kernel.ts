import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { VirtualHciSocket } from '../../src/discovery/virtual-hci-socket.js';
import { findExecutable } from './installed.js';

// The kernel's side of a real HCI module, on a machine without Bluetooth. hci-kernel.c, loaded
// with LD_PRELOAD, hands the module a socket whose packets come and go here, framed over a Unix
// stream socket, where a VirtualHciSocket answers as the controller. So the daemon's real native
// module (its reading, its hand-over of each packet to JavaScript) and noble's HCI and GAP layers
// all carry a button's advertising report before the engine sees it.

const HCI_COMMAND_PKT = 0x01;

export interface HciKernel {
  /** LD_PRELOAD and PANIC_PAIR_TEST_HCI for the process under test. */
  env: Record<string, string>;
  /** The controller of the socket that most recently sent an HCI command (noble's), once one has. */
  controller(): VirtualHciSocket | undefined;
  /** How many HCI sockets the module has opened. */
  opened(): number;
  /** Powers hci0 off or on, as `hciconfig hci0 down`/`up` does: the kernel's flag and the controller. */
  setPowered(on: boolean): void;
  /**
   * hci0 goes away (unplugged, its controller crashed): it leaves the listing of
   * /sys/class/bluetooth, reads as down, and the module's open sockets are cut, so that their next
   * write fails (EPIPE). Only a socket opened afresh reaches the adapter that `plugIn` brings back.
   */
  vanish(): void;
  /** hci0 is back (listed and up), as a new adapter under the same index. */
  plugIn(): void;
  close(): Promise<void>;
}

/** Compiles hci-kernel.c into a temporary folder; a reason when there is no C compiler. */
export async function compileHciKernel(): Promise<{ library: string; dispose(): void } | string> {
  const compiler = findExecutable('cc') ?? findExecutable('gcc');
  if (compiler === undefined) return 'no C compiler (cc) to build the HCI stand-in with';
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-hci-kernel-'));
  const library = path.join(dir, 'hci-kernel.so');
  const source = path.join(import.meta.dirname, 'hci-kernel.c');
  await promisify(execFile)(compiler, ['-shared', '-fPIC', '-O2', '-Wall', '-o', library, source, '-lpthread', '-ldl']);
  return { library, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Listens for the module's sockets; each gets a controller with `address` (e.g. 02:00:00:00:00:01). */
export async function startHciKernel(library: string, options: { address?: string } = {}): Promise<HciKernel> {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-hci-'));
  const socketPath = path.join(dir, 'hci.sock');
  let latest: VirtualHciSocket | undefined;
  let opened = 0;
  const connections = new Set<net.Socket>();
  const server = net.createServer((connection) => {
    connections.add(connection);
    connection.once('close', () => connections.delete(connection));
    const controller = new VirtualHciSocket({ address: options.address });
    opened += 1;
    controller.on('data', (packet: Buffer) => {
      const frame = Buffer.alloc(2 + packet.length);
      frame.writeUInt16LE(packet.length, 0);
      packet.copy(frame, 2);
      connection.write(frame);
    });
    let held = Buffer.alloc(0);
    connection.on('data', (chunk: Buffer) => {
      held = Buffer.concat([held, chunk]);
      while (held.length >= 2 && held.length >= 2 + held.readUInt16LE(0)) {
        const size = held.readUInt16LE(0);
        // The adapter's socket is the one that sends HCI commands; a management socket (the
        // daemon powering the adapter on) sends other packets, which the controller ignores.
        if (held[2] === HCI_COMMAND_PKT) latest = controller;
        controller.write(held.subarray(2, 2 + size));
        held = held.subarray(2 + size);
      }
    });
    connection.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  // What the process under test lists as /sys/class/bluetooth (hci-kernel.c): hci0, while it exists.
  const adapterDir = path.join(`${socketPath}.sys`, 'class', 'bluetooth', 'hci0');
  mkdirSync(adapterDir, { recursive: true });
  return {
    env: { LD_PRELOAD: library, PANIC_PAIR_TEST_HCI: socketPath },
    controller: () => latest,
    opened: () => opened,
    setPowered(on) {
      if (on) rmSync(`${socketPath}.down`, { force: true });
      else writeFileSync(`${socketPath}.down`, '');
      latest?.setPowered(on);
    },
    vanish() {
      writeFileSync(`${socketPath}.down`, '');
      rmSync(adapterDir, { recursive: true, force: true });
      latest?.setPowered(false);
      for (const connection of connections) connection.destroy();
    },
    plugIn() {
      mkdirSync(adapterDir, { recursive: true });
      rmSync(`${socketPath}.down`, { force: true });
    },
    async close() {
      for (const connection of connections) connection.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
