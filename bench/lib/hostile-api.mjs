// The API side of the hostile bench: a proxy between the daemon and the simulator that
// answers half the requests itself, with garbage, bodies far too large, bodies that never end,
// 500s and nonsense Retry-After, while `pair` runs in a loop with new ids.
import http from 'node:http';
import { bytes, int, pick, random } from './hostile-random.mjs';
import { onCleanup, sleep } from './lifecycle.mjs';

const CHUNK = Buffer.alloc(64 * 1024, 0x20);

/** Writes up to `total` bytes of `{"a":[ ...` as fast as the client reads, until it goes away. */
function endlessJson(res, total) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"subscriptions":[');
  let sent = 0;
  const more = () => {
    while (sent < total && !res.destroyed) {
      sent += CHUNK.length;
      if (!res.write(CHUNK)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
}

function trickle(res) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"id":');
  const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('1')), 500);
  res.once('close', () => clearInterval(timer));
}

const ANSWERS = [
  (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(bytes(300)),
  (res) => endlessJson(res, 50 * 1024 * 1024),
  (res) => trickle(res),
  (res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal"}'),
  (res) => res.writeHead(pick([429, 503]), { 'retry-after': pick(['soon', '-1', '1e10', '99999999999', 'Thu, 01 Jan 2099 00:00:00 GMT', 'NaN', '']) }).end(),
  (res) => res.socket?.destroy(),
];

/** The proxy; `hostile()` turns its own answers on and off. */
export async function startHostileApi(targetUrl) {
  const target = new URL(targetUrl);
  let on = false;
  const counts = { forwarded: 0, answered: 0 };
  const server = http.createServer((req, res) => {
    res.on('error', () => undefined);
    if (on && random() < 0.5) {
      counts.answered += 1;
      req.resume();
      pick(ANSWERS)(res);
      return;
    }
    counts.forwarded += 1;
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${server.address().port}`, counts, hostile: (value) => (on = value) };
}

/** `pair <new id>` in a loop, each id announced first so the daemon reaches the API with it. */
export async function pairLoop(daemon, announce, until, counts) {
  while (Date.now() < until) {
    const deviceId = `NEW-${int(0, 1e9).toString(36).toUpperCase()}`;
    announce(deviceId);
    await daemon.call({ type: 'pair', deviceId, timeoutMs: 3_000 }, { timeoutMs: 10_000 }).catch(() => undefined);
    counts.api += 1;
    await sleep(10);
  }
}
