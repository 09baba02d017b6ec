import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

export interface HciKernel {
  /** LD_PRELOAD and PANIC_PAIR_TEST_HCI for the process under test. */
  env: Record<string, string>;
  /** The controller of the most recent socket the module opened, once it has opened one. */
  controller(): VirtualHciSocket | undefined;
  /** How many HCI sockets the module has opened. */
  opened(): number;
  /** Powers hci0 off or on, as `hciconfig hci0 down`/`up` does: the kernel's flag and the controller. */
  setPowered(on: boolean): void;
  /**
   * hci0 goes away (unplugged, its controller crashed): it reads as down, and the module's open
   * sockets are cut, so their next write fails (EPIPE). `setPowered(true)` brings an adapter back
   * under the same index; only a socket opened afresh reaches it.
   */
  vanish(): void;
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
    latest = controller;
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
        controller.write(held.subarray(2, 2 + size));
        held = held.subarray(2 + size);
      }
    });
    connection.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
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
      latest?.setPowered(false);
      for (const connection of connections) connection.destroy();
    },
    async close() {
      for (const connection of connections) connection.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
