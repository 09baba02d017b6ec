// Loopback ports for the test suite and the benchmarks alike (bench/ is plain JavaScript, so this
// one is too; loopback.d.mts gives the tests its types).
import net from 'node:net';

/** A TCP port free on 127.0.0.1 at the moment of asking. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on 127.0.0.1:port now. */
export function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
