// The control-socket side of the hostile bench: clients with oversized and malformed
// frames, lines left open, and now and then 100 clients at once.
import net from 'node:net';
import { pick, text } from './hostile-random.mjs';

/** One client: a frame of the mix, then gone (or cut off after 3 s). */
export function hostileControl(socketPath, linked) {
  return new Promise((resolve) => {
    const socket = net.createConnection({ path: socketPath });
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.on('data', () => undefined);
    socket.setTimeout(3_000, () => socket.destroy());
    socket.on('connect', () => {
      pick([
        () => socket.end(`${text(200)}\n`),
        () => socket.write('{"type":"status"'),
        // Oversized: a line of a megabyte, and one that never ends.
        () => socket.end(`${'x'.repeat(1024 * 1024)}\n`),
        () => socket.write(`{"type":"pair","deviceId":"${'A'.repeat(4 * 1024 * 1024)}`),
        () => socket.end(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}\n`),
        () => socket.end('{"__proto__":{"type":"forget"},"type":"status"}\n'),
        () => socket.end('{"type":"launch-missiles"}\n'),
        () => socket.end(`${JSON.stringify(pick([{ type: 'status' }, { type: 'devices' }, { type: 'household' }, { type: 'scan', seconds: 0.2 }, { type: 'pair', deviceId: pick(linked), timeoutMs: 500 }, { type: 'forget', deviceId: 'NEVER-LINKED' }]))}\n`),
      ])();
    });
  });
}

/** Two clients in a loop, and every `floodEveryMs` 100 at once, until `until` (epoch ms). */
export async function attackSocket(socketPath, linked, until, counts, floodEveryMs = 5_000) {
  const loop = async () => {
    while (Date.now() < until) {
      await hostileControl(socketPath, linked);
      counts.control += 1;
    }
  };
  const floods = async () => {
    while (Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, floodEveryMs));
      await Promise.all(Array.from({ length: 100 }, () => hostileControl(socketPath, linked)));
      counts.control += 100;
    }
  };
  await Promise.all([loop(), loop(), floods()]);
}
