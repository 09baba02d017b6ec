import { createServer, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PanicPairError } from '../errors.js';

export interface EmbeddedBroker {
  url: string;
  close(): Promise<void>;
}

type AedesModule = typeof import('aedes');

const PACKAGE_DIR = path.resolve(fileURLToPath(new URL('../../', import.meta.url)));

/**
 * An MQTT broker inside this process (aedes) on a free loopback port, so that the demo needs no
 * system service. aedes is a development dependency, loaded only here: a hub installed with
 * `npm ci --omit=dev` has none, and the daemon never needs it.
 */
export async function startEmbeddedBroker(load: () => Promise<AedesModule> = () => import('aedes')): Promise<EmbeddedBroker> {
  const { Aedes } = await loadAedes(load);
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

async function loadAedes(load: () => Promise<AedesModule>): Promise<AedesModule> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String((error as Error).message).includes("'aedes'")) throw error;
    throw new PanicPairError(
      'failure',
      'the demo needs its embedded MQTT broker (the aedes package), which this install left out: it was installed ' +
        `without development packages (npm ci --omit=dev). To see the demo, run \`npm ci\` in ${PACKAGE_DIR} ` +
        '(a full install); the daemon and the other commands need none of it',
      { cause: error },
    );
  }
}
