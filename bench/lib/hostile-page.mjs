// The page side of the hostile bench: requests of the mix as raw bytes on loopback
// (a 1 MB sign-in body, 2,000 headers, 9 KB cookies, chunked garbage, forged sessions), and slow
// clients that never finish their request, a few dozen held open at a time.
import net from 'node:net';
import { bytes, int, pick, random, text } from './hostile-random.mjs';

function send(port, head, body = Buffer.alloc(0)) {
  return new Promise((resolve) => {
    const socket = net.createConnection({ host: '127.0.0.1', port });
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.on('data', () => socket.destroy());
    socket.setTimeout(3_000, () => socket.destroy());
    socket.on('connect', () => socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body])));
  });
}

/** One request of the mix. */
export function hostileRequest(port) {
  const host = `Host: 127.0.0.1:${port}`;
  const form = 'Content-Type: application/x-www-form-urlencoded';
  return pick([
    () => {
      const body = Buffer.from(`code=${'a'.repeat(1024 * 1024)}`);
      return send(port, ['POST /login HTTP/1.1', host, form, `Content-Length: ${body.length}`], body);
    },
    () => send(port, ['GET / HTTP/1.1', host, ...Array.from({ length: 2_000 }, (_, i) => `X-Header-${i}: ${text(20).replace(/[\r\n]/g, '')}`)]),
    () => send(port, ['GET /api/live HTTP/1.1', host, `Cookie: panic_pair_session=${'c'.repeat(9 * 1024)}`]),
    () => send(port, ['POST /api/pair HTTP/1.1', host, 'Content-Type: application/json', 'Transfer-Encoding: chunked'], Buffer.concat([Buffer.from(`${pick(['zz', 'fffffffff', '-1', '10'])}\r\n`), bytes(300), Buffer.from('\r\n0\r\n')])),
    () => send(port, [`${pick(['GET', 'POST', text(8)])} /${text(40).replace(/[\s]/g, '')} HTTP/1.1`, host, `Cookie: panic_pair_session=${text(43).replace(/[\r\n;]/g, '')}`]),
    () => {
      const body = Buffer.from(JSON.stringify({ deviceId: `PAGE-${int(0, 1e9)}`, customerId: 43 }));
      return send(port, ['POST /api/pair HTTP/1.1', host, 'Origin: http://evil.example', 'Content-Type: application/json', `Content-Length: ${body.length}`], body);
    },
  ])();
}

/** A client that sends part of a request and then a byte now and then, never finishing. */
function slowClient(port, until) {
  return new Promise((resolve) => {
    const socket = net.createConnection({ host: '127.0.0.1', port });
    let timer;
    const done = () => {
      clearInterval(timer);
      socket.destroy();
      resolve();
    };
    socket.on('error', done);
    socket.on('close', done);
    socket.on('connect', () => {
      socket.write(random() < 0.5 ? `POST /login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 100000\r\n\r\ncode=` : 'GET / HTTP/1.1\r\nX-Slow: ');
      timer = setInterval(() => (Date.now() >= until ? done() : socket.write('a')), 1_000);
    });
  });
}

/** Requests one after another, and `slow` slow clients held open, until `until` (epoch ms). */
export async function attackPage(port, until, counts, slow = 40) {
  const loop = async () => {
    while (Date.now() < until) {
      await hostileRequest(port);
      counts.page += 1;
    }
  };
  const slowOnes = async () => {
    while (Date.now() < until) await slowClient(port, until);
  };
  await Promise.all([loop(), loop(), ...Array.from({ length: slow }, slowOnes)]);
}
