import net from 'node:net';

// A TCP relay between a client and the broker, so a test can drop the link the way a pulled
// cable or a killed process does: the broker sees the connection end without a DISCONNECT.
export interface LinkProxy {
  url: string;
  port: number;
  /** Drops every relayed connection at once; new ones are still accepted. */
  cut(): void;
  close(): Promise<void>;
}

export async function startLinkProxy(targetPort: number): Promise<LinkProxy> {
  const pairs = new Set<[net.Socket, net.Socket]>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  const cut = (): void => {
    for (const [client, upstream] of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    cut,
    close() {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
