// The installer's page as a browser, or anything else on the LAN, reaches it: each
// input becomes one HTTP request written raw to the real server (method, path, Host, Origin,
// cookies, content type, an extra header line, the body; the sign-in form; the live stream).
// Every request gets a response with a status the page uses, or is refused by Node's parser
// before it is one; none gets a 500, none is left without an answer, and the server goes on.
import { connect } from 'node:net';
import { Secret } from '../../../dist/config/secret.js';
import { silentLogger } from '../../../dist/log/logger.js';
import { startWebPage } from '../../../dist/web/index.js';
import { expect, tally } from './verdict.mjs';

const CODE = 'fuzz-installer-code-5521';
const handlers = {
  status: () => ({ customerId: 42, ble: 'scanning', mqtt: 'connected', devices: 0 }),
  devices: () => [],
  scan: async () => [],
  forget: async () => ({ removed: false }),
  pair: async (deviceId, options) => ({ ok: true, deviceId, linkId: 1, customerId: options.customerId ?? 42 }),
  window: async (_seconds, options) => {
    options.onOpen?.();
    return { linked: [] };
  },
  household: async () => [{ customerId: 42, entitled: true, role: 'hub' }],
  check: async () => ({ ok: true, results: [] }),
  heard: () => [],
  onChange: () => undefined,
};
const page = await startWebPage({ config: { host: '127.0.0.1', port: 0, codeFile: 'unused' }, secrets: { code: new Secret(CODE) }, handlers, logger: silentLogger(), hubName: 'hub' });
const port = Number(new URL(page.url).port);
const HOST = `127.0.0.1:${port}`;
const ORIGIN = `http://${HOST}`;
/** Statuses the page answers with; a 500 means a request broke it. */
const ANSWERS = new Set([200, 202, 303, 400, 401, 403, 404, 405, 409, 413, 415, 421, 429, 431, 503, 505]);
const METHODS = ['GET', 'POST', 'HEAD', 'PUT', 'OPTIONS', 'DELETE'];
const PATHS = ['/', '/login', '/logout', '/api/live', '/api/pair', '/api/window', '/api/forget', '/api/check', '/app.js', '/style.css'];
export const outcomes = tally();

/** One exchange on a fresh connection: the status line's code, or undefined when closed unanswered. */
function exchange(request, localAddress = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    let head = Buffer.alloc(0);
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      socket.destroy();
      reject(new Error(`no answer within 900 ms to ${JSON.stringify(request.subarray(0, 200).toString('latin1'))}`));
    }, 900);
    socket.on('data', (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      const text = head.subarray(0, end).toString('latin1');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1]);
      const cookie = /^set-cookie: panic_pair_session=([^;]+)/im.exec(text)?.[1];
      finish({ status, cookie, head: text });
    });
    socket.on('error', () => finish(undefined));
    socket.on('close', () => finish(undefined));
    socket.end(request);
  });
}

let session;
async function signIn() {
  // From another loopback address than the fuzzed requests, whose wrong codes block their own.
  const body = `code=${CODE}`;
  const reply = await exchange(Buffer.from(`POST /login HTTP/1.1\r\nHost: ${HOST}\r\nOrigin: ${ORIGIN}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`), '127.0.0.2');
  expect(reply?.status === 303 && reply.cookie !== undefined, `sign-in answered ${reply?.status}`);
  session = reply.cookie;
}
await signIn();

export async function fuzz(data) {
  const flags = data[2] ?? 0;
  const fields = data.subarray(3).toString('latin1').split('\0');
  const [raw = '', extra = '', cookieExtra = '', ...rest] = fields;
  const body = Buffer.from(rest.join('\0'), 'latin1');
  const method = (data[0] ?? 0) % (METHODS.length + 1) === METHODS.length ? raw.split(' ')[0] || 'GET' : METHODS[(data[0] ?? 0) % METHODS.length];
  const path = (data[1] ?? 0) % (PATHS.length + 1) === PATHS.length ? raw : PATHS[(data[1] ?? 0) % PATHS.length] + ((data[1] ?? 0) > 200 ? raw : '');
  const lines = [`${method} ${path || '/'} HTTP/1.1`];
  lines.push(flags & 0x01 ? `Host: ${HOST}` : `Host: ${raw || 'evil.example'}`);
  if (flags & 0x02) lines.push(`Origin: ${ORIGIN}`);
  else if (flags & 0x20) lines.push('Sec-Fetch-Site: same-origin');
  if (flags & 0x04) lines.push(`Cookie: panic_pair_session=${session}${cookieExtra ? `; ${cookieExtra}` : ''}`);
  else if (cookieExtra) lines.push(`Cookie: ${cookieExtra}`);
  if (flags & 0x08) lines.push('Content-Type: application/json');
  else if (flags & 0x10) lines.push('Content-Type: application/x-www-form-urlencoded');
  if (extra && !/^(content-length|transfer-encoding)\s*:/i.test(extra)) lines.push(extra);
  lines.push(`Content-Length: ${body.length}`);
  const request = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
  const reply = await exchange(request);
  if (reply === undefined) {
    outcomes.rejected(); // Node's parser refused it and closed
  } else {
    expect(ANSWERS.has(reply.status), `answered ${reply.status}: ${reply.head.split('\r\n')[0]}`);
    if (reply.status !== 400 && reply.status !== 431 && reply.status !== 505) {
      expect(/^content-security-policy: .*frame-ancestors 'none'/im.test(reply.head) && /^x-content-type-options: nosniff/im.test(reply.head), 'the security headers on every answer');
    }
    if (reply.status < 400) outcomes.accepted();
    else outcomes.rejected();
  }
  // A sign-out, fuzzed, ends the session the other inputs use.
  if (path === '/logout' && flags & 0x04) await signIn();
}

export function seeds() {
  const as = (method, path, flags, fields) => Buffer.concat([Buffer.of(method, path, flags), Buffer.from(fields.join('\0'), 'latin1')]);
  return [
    as(0, 0, 0x01, []),
    as(0, 0, 0x05, []),
    as(1, 1, 0x13, ['', '', '', 'code=wrong-code']),
    as(1, 4, 0x0f, ['', '', '', '{"deviceId":"7F3A9C","customerId":43}']),
    as(1, 5, 0x0f, ['', '', '', '{"seconds":30}']),
    as(1, 6, 0x0f, ['', '', '', '{"deviceId":"7F3A9C"}']),
    as(1, 7, 0x0f, ['', 'Accept: */*', '', '{}']),
    as(1, 3, 0x07, []),
    as(1, 2, 0x07, []),
    as(0, 10, 0x01, ['/../../etc/passwd?x=1']),
    as(6, 0, 0x01, ['BREW']),
    as(1, 4, 0x2d, ['', 'X-Forwarded-For: 1.2.3.4', 'a=b; panic_pair_session=forged', '{"deviceId":1}']),
  ];
}
