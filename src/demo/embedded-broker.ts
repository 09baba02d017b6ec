import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface EmbeddedBroker {
  url: string;
  close(): Promise<void>;
}

/**
 * An MQTT broker inside this process (aedes) on a free loopback port, so that the demo needs no
 * system service. aedes is loaded only here: the daemon itself never needs it.
 */
export async function startEmbeddedBroker(): Promise<EmbeddedBroker> {
  const { Aedes } = await import('aedes');
  const broker = await Aedes.createBroker();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    broker.handle(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => broker.close(() => resolve()));
    },
  };
}
