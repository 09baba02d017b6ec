// A TCP relay on loopback that counts the bytes each way: put between a hub's bridge and the
// central broker, it reads what a hub costs the central side on the wire (MQTT packets, TLS and
// TCP/IP headers left out).
import net from 'node:net';
import { onCleanup } from './lifecycle.mjs';

export async function startCountingProxy(targetPort) {
  const counts = { toCentral: 0, fromCentral: 0 };
  const sockets = new Set();
  const server = net.createServer((hub) => {
    const central = net.connect({ host: '127.0.0.1', port: targetPort });
    for (const socket of [hub, central]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    hub.on('data', (chunk) => {
      counts.toCentral += chunk.length;
      central.write(chunk);
    });
    central.on('data', (chunk) => {
      counts.fromCentral += chunk.length;
      hub.write(chunk);
    });
    hub.once('close', () => central.destroy());
    central.once('close', () => hub.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return {
    port: server.address().port,
    /** Bytes each way since the last reset. */
    read: () => ({ ...counts }),
    reset() {
      counts.toCentral = 0;
      counts.fromCentral = 0;
    },
  };
}
