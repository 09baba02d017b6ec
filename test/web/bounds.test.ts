import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { DaemonHarness } from '../support/daemon-harness.js';
import { servePageForFile } from '../support/page-daemon.js';
import { rawRequest, signIn, type PageSettings } from '../support/web-page.js';
import { readBody } from '../../src/http/json-io.js';
import { LINGER_MS, MAX_BODY_BYTES, MAX_COOKIE_BYTES, MAX_HEADER_COUNT, refuse, serverOptions, tooLarge } from '../../src/web/request-bounds.js';
import { openRaw, statusOf, writableAgain } from './raw-connection.js';

// What one client may send the page, against a real daemon over loopback: each request
// over a bound gets a status that names it and its connection closed, and the page and the daemon
// carry on as before.

let harness: DaemonHarness;
let page: PageSettings;

servePageForFile((served) => ({ harness, page } = served));

function head(lines: string[]): string {
  return `${[...lines, `Host: 127.0.0.1:${page.port}`].join('\r\n')}\r\n\r\n`;
}

const signInHead = (extra: string[]): string =>
  head(['POST /login HTTP/1.1', `Origin: ${page.origin}`, 'Content-Type: application/x-www-form-urlencoded', ...extra]);

/** The page still serves and signs in, and the daemon still answers on its control socket. */
async function stillFine(): Promise<void> {
  expect((await rawRequest(page.port)).status).toBe(200);
  expect(await signIn(page)).toMatch(/^panic_pair_session=/);
  expect((await harness.status()).healthy).toBe(true);
}

describe('bodies', () => {
  it('refuses a 1 MB sign-in body by its Content-Length, without waiting for a byte of it, and counts no guess', async () => {
    for (let attempt = 0; attempt < 6; attempt++) {
      const raw = await openRaw(page.port);
      // The body is announced and never sent: only a server that does not wait for it can answer.
      raw.socket.write(signInHead([`Content-Length: ${1024 * 1024}`]));
      const reply = await raw.closed;
      expect(statusOf(reply)).toBe(413);
      expect(reply).toMatch(/\r\nconnection: close\r\n/i);
      expect(reply).toContain(`longer than ${MAX_BODY_BYTES} bytes`);
      expect(reply).toContain('\r\nContent-Security-Policy: ');
    }
    // Six refusals from this address, and the right code still signs in: none was counted as a guess.
    await stillFine();
  });

  it('cuts off a chunked body as it passes the bound', async () => {
    const raw = await openRaw(page.port);
    raw.socket.write(signInHead(['Transfer-Encoding: chunked']));
    const chunk = `400\r\n${'code=x&'.repeat(146)}xx\r\n`; // 1 KiB a chunk, without end
    let written = 0;
    let answered = false;
    void raw.statusLine.then(() => (answered = true));
    while (!answered && !raw.socket.destroyed && written < 1024) {
      if (!raw.socket.write(chunk)) await writableAgain(raw);
      written++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(statusOf(await raw.closed)).toBe(413);
    // A few chunks past the bound at most, not the megabyte the client would have sent.
    expect(written).toBeLessThan(1024);
    await stillFine();
  });

  it('lets a client still sending its refused body read the answer, then closes in stages', async () => {
    const raw = await openRaw(page.port, { halfOpen: true });
    const chunk = `1400\r\n${'code=x&'.repeat(731)}xxx\r\n`; // 5 KiB: past the bound in one chunk
    raw.socket.write(signInHead(['Transfer-Encoding: chunked']) + chunk);
    await raw.ended; // the answer is out and the page has ended its side
    // More of the body after that meets an open socket, not a reset that could erase the answer:
    // a reset for the first write would fail the second.
    await new Promise((resolve) => raw.socket.write(chunk, resolve));
    raw.socket.end(chunk);
    expect(await raw.closedCleanly).toBe(true);
    expect(statusOf(await raw.closed)).toBe(413);
    await stillFine();
  });

  it.each([
    ['a chunk size that is not hex', 'zz\r\nhello\r\n0\r\n\r\n'],
    ['a chunk longer than its size', '2\r\nhello world\r\n0\r\n\r\n'],
    ['binary garbage', '\u0000\u00ff\u0013\r\n\r\n\r\n\u0080'],
  ])('answers chunked garbage (%s) with 400 and closes', async (_name, body) => {
    const raw = await openRaw(page.port);
    raw.socket.write(signInHead(['Transfer-Encoding: chunked']) + body);
    expect(statusOf(await raw.closed)).toBe(400);
    await stillFine();
  });

  it('refuses a JSON action body over the bound with 413', async () => {
    const cookie = await signIn(page);
    const reply = await rawRequest(page.port, {
      method: 'POST',
      path: '/api/pair',
      headers: { cookie, origin: page.origin, 'content-type': 'application/json' },
      body: JSON.stringify({ deviceId: 'BIG01', padding: 'x'.repeat(MAX_BODY_BYTES) }),
    });
    expect(reply.status).toBe(413);
    await stillFine();
  });
});

describe('closing in stages', () => {
  it('closes a refused connection whose client neither sends more nor closes, after LINGER_MS', async () => {
    // Seen from the server's side, which the client cannot see once the server has ended its own.
    const server = createServer(serverOptions(), (request, response) => {
      void readBody(request, MAX_BODY_BYTES).then(() => refuse(response, tooLarge)); // always over
    });
    const serverSide = new Promise<Socket>((resolve) => server.once('connection', resolve));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const raw = await openRaw((server.address() as AddressInfo).port, { halfOpen: true });
      // The linger starts once the server has the request, after this: no sooner than here.
      const sentAt = performance.now();
      raw.socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n1400\r\n${'x'.repeat(0x1400)}\r\n`);
      const socket = await serverSide;
      await raw.ended;
      expect(socket.destroyed).toBe(false); // lingering: the client may still be sending
      await new Promise((resolve) => socket.once('close', resolve)); // then closed by its timer
      // Node's timers run on the event loop's clock, whole milliseconds read at the start of the
      // loop's turn: one may fire up to 1 ms short of performance.now()'s count.
      expect(performance.now() - sentAt).toBeGreaterThanOrEqual(LINGER_MS - 1);
      raw.socket.destroy();
    } finally {
      server.close();
    }
  });
});

describe('headers', () => {
  it('answers 2,000 headers with 431', async () => {
    const raw = await openRaw(page.port);
    raw.socket.write(head(['GET / HTTP/1.1', ...Array.from({ length: 2_000 }, (_, i) => `X-Flood-${i}: ${i}`)]));
    expect(statusOf(await raw.closed)).toBe(431);
    await stillFine();
  });

  it(`answers more than ${MAX_HEADER_COUNT} small headers with 431, by count`, async () => {
    const reply = await rawRequest(page.port, {
      headers: Object.fromEntries(Array.from({ length: MAX_HEADER_COUNT + 1 }, (_, i) => [`x-h${i}`, '1'])),
    });
    expect(reply.status).toBe(431);
    expect(reply.body).toContain(`more than ${MAX_HEADER_COUNT} request headers`);
    await stillFine();
  });

  it('answers a 9 KB cookie with 431, and one of 5 KB too', async () => {
    const nine = await openRaw(page.port);
    nine.socket.write(head(['GET / HTTP/1.1', `Cookie: big=${'c'.repeat(9 * 1024)}`]));
    expect(statusOf(await nine.closed)).toBe(431);
    const five = await rawRequest(page.port, { headers: { cookie: `big=${'c'.repeat(MAX_COOKIE_BYTES + 1024)}` } });
    expect(five.status).toBe(431);
    expect(five.body).toContain(`cookies longer than ${MAX_COOKIE_BYTES} bytes`);
    await stillFine();
  });
});

describe('slow clients', () => {
  // Both at once: each waits out the page's 10 s for headers.
  it('cuts off a client that sends its headers a byte at a time and never finishes them, and one that sends nothing', async () => {
    const [trickling, silent] = await Promise.all([openRaw(page.port), openRaw(page.port)]);
    trickling.socket.write('GET / HTTP/1.1\r\nX-Slow: ');
    const trickle = setInterval(() => {
      if (!trickling.socket.destroyed) trickling.socket.write('a');
    }, 200);
    try {
      expect(statusOf(await trickling.closed)).toBe(408);
      await silent.closed;
    } finally {
      clearInterval(trickle);
    }
    await stillFine();
  }, 30_000);
});
