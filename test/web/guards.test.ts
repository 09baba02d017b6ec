import { request, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { postsFor, type DaemonHarness } from '../support/daemon-harness.js';
import { servePageForFile } from '../support/page-daemon.js';
import { waitFor } from '../support/wait.js';
import { postCode, rawRequest, signIn, type PageSettings } from '../support/web-page.js';

// The page's guards over raw HTTP, against a real daemon.

let harness: DaemonHarness;
let page: PageSettings;

servePageForFile((served) => ({ harness, page } = served));

const json = { 'content-type': 'application/json' };

describe('a second tap on Pair', () => {
  it('starts nothing while the same button is still being paired: 409, and it says why', async () => {
    const cookie = await signIn(page);
    const ask = () =>
      rawRequest(page.port, {
        method: 'POST',
        path: '/api/pair',
        headers: { cookie, origin: page.origin, ...json },
        body: JSON.stringify({ deviceId: 'TWICE01' }),
      });
    expect((await ask()).status).toBe(202);
    const again = await ask();
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body)).toEqual({ error: 'TWICE01 is already being paired: press the button, or wait until this pairing ends', code: 'pairing-running' });
    await harness.announce('TWICE01');
    await waitFor(async () => (await harness.devices()).some((device) => device.deviceId === 'TWICE01' && device.state === 'linked'), {
      what: 'TWICE01 linked',
    });
    expect(postsFor(harness, 'TWICE01')).toBe(1);
    // Ended: the next tap starts a pairing again (the button is already linked).
    await waitFor(async () => (await ask()).status === 202, { what: 'a new pairing accepted once the first ended' });
  });
});

describe("the installer's page", () => {
  it('offers sign-in and nothing else without a session', async () => {
    const home = await rawRequest(page.port);
    expect(home.status).toBe(200);
    expect(home.body).toContain('Installer code');
    expect(home.body).not.toContain('Button ID');
    for (const path of ['/api/live', '/api/pair', '/api/window', '/api/forget', '/api/check']) {
      const reply = await rawRequest(page.port, { method: 'POST', path, headers: { origin: page.origin, ...json }, body: '{}' });
      expect(reply.status, path).toBe(401);
      expect(reply.body).not.toContain('customerId');
    }
  });

  it('sends its security headers on every response', async () => {
    for (const path of ['/', '/app.js', '/nowhere']) {
      const reply = await rawRequest(page.port, { path });
      const policy = String(reply.headers['content-security-policy']);
      expect(policy).toContain("default-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe-inline');
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
    }
    const home = await rawRequest(page.port);
    expect(home.body).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('refuses a Host that is not the hub (DNS rebinding)', async () => {
    for (const host of ['evil.example.com', 'evil.example.com:80', 'panic-pair.evil.local.example']) {
      const reply = await rawRequest(page.port, { headers: { host } });
      expect(reply.status, host).toBe(421);
      expect(reply.body).not.toContain('Installer code');
    }
    const cookie = await signIn(page);
    const live = await rawRequest(page.port, {
      method: 'POST', path: '/api/live', headersOnly: true,
      headers: { host: 'rebound.example.com', origin: 'http://rebound.example.com', cookie, ...json },
    });
    expect(live.status).toBe(421);
    for (const host of ['localhost', `localhost:${page.port}`, '[::1]:8080', '192.168.1.20:8080']) {
      expect((await rawRequest(page.port, { headers: { host } })).status, host).toBe(200);
    }
  });

  it('refuses state-changing requests and the live channel from another origin', async () => {
    const cookie = await signIn(page);
    const cases: Array<Record<string, string>> = [{}, { origin: 'http://evil.example.com' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of cases) {
      for (const path of ['/api/live', '/api/window', '/logout']) {
        const reply = await rawRequest(page.port, { method: 'POST', path, headersOnly: true, headers: { cookie, ...json, ...headers }, body: '{"seconds":5}' });
        expect(reply.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(reply.body).not.toContain('snapshot');
      }
    }
    const login = await rawRequest(page.port, {
      method: 'POST', path: '/login', headers: { origin: 'http://evil.example.com', 'content-type': 'application/x-www-form-urlencoded' }, body: `code=${page.code}`,
    });
    expect(login.status).toBe(403);
    expect(login.headers['set-cookie']).toBeUndefined();
    // Sec-Fetch-Site: same-origin stands in for a missing Origin.
    const live = await rawRequest(page.port, { method: 'POST', path: '/api/live', headersOnly: true, headers: { cookie, 'sec-fetch-site': 'same-origin', ...json } });
    expect(live.status).toBe(200);
  });

  it('sets a session cookie that scripts cannot read and cross-site requests do not carry', async () => {
    const reply = await postCode(page, page.code);
    expect(reply.status).toBe(303);
    expect(reply.headers.location).toBe('/');
    const cookie = String([reply.headers['set-cookie']].flat()[0]);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/); // plain HTTP here; the HTTPS test checks Secure
    expect(cookie).not.toContain(page.code);
  });

  it('ends a session at sign-out, and the live channel open with it', async () => {
    const cookie = await signIn(page);
    const channel = await new Promise<IncomingMessage>((resolve, reject) => {
      const live = request(
        { host: '127.0.0.1', port: page.port, method: 'POST', path: '/api/live', headers: { host: `127.0.0.1:${page.port}`, origin: page.origin, cookie, ...json } },
        resolve,
      );
      live.on('error', reject);
      live.end('{}');
    });
    expect(channel.statusCode).toBe(200);
    const ended = new Promise<void>((resolve) => {
      channel.on('end', resolve);
      channel.resume();
    });
    const before = await rawRequest(page.port, { headers: { cookie } });
    expect(before.body).toContain('Button ID');
    const out = await rawRequest(page.port, { method: 'POST', path: '/logout', headers: { cookie, origin: page.origin } });
    expect(out.status).toBe(303);
    expect(String([out.headers['set-cookie']].flat()[0])).toMatch(/Max-Age=0/);
    const after = await rawRequest(page.port, { headers: { cookie } });
    expect(after.body).toContain('Installer code');
    expect(after.body).not.toContain('Button ID');
    const live = await rawRequest(page.port, { method: 'POST', path: '/api/live', headersOnly: true, headers: { cookie, origin: page.origin, ...json } });
    expect(live.status).toBe(401);
    await ended; // at the channel's next beat at the latest
  });

  it('never sends the API token, in pages, assets or the live snapshot', async () => {
    const cookie = await signIn(page);
    await harness.announceSeen('TOKENCHECK1', { rssi: -50 });
    const replies = await Promise.all([
      rawRequest(page.port, { headers: { cookie } }),
      rawRequest(page.port, { path: '/app.js' }),
      rawRequest(page.port, { method: 'POST', path: '/api/live', headersOnly: true, headers: { cookie, origin: page.origin, ...json } }),
    ]);
    expect(replies[2]?.body).toContain('TOKENCHECK1');
    // The pre-flight run from the page reads the token and asks the API with it: its report neither.
    const asked = await rawRequest(page.port, { method: 'POST', path: '/api/check', headers: { cookie, origin: page.origin, ...json }, body: '{}' });
    expect(asked.status).toBe(202);
    const checked = await waitFor(async () => {
      const live = await rawRequest(page.port, { method: 'POST', path: '/api/live', headersOnly: true, headers: { cookie, origin: page.origin, ...json } });
      return live.body.includes('"running":false') ? live : undefined;
    }, { what: 'the checks run from the page', timeoutMs: 20_000, intervalMs: 200 });
    // The page gets each check's result, never its sentences: the token check passed.
    expect(checked.body).toContain('{"name":"token","ok":true}');
    replies.push(checked);
    for (const reply of replies) {
      expect(reply.body).not.toContain(harness.token);
      expect(JSON.stringify(reply.headers)).not.toContain(harness.token);
    }
  });

  it('answers 429 for a minute after five wrong codes from one address, the right code included, and logs each attempt', async () => {
    const from = harness.output().length;
    const attempt = (code: string) => postCode(page, code);
    for (let i = 0; i < 5; i++) expect((await attempt(`guess-${i}`)).status).toBe(401);
    const blocked = await attempt(page.code);
    expect(blocked.status).toBe(429);
    expect(blocked.headers['set-cookie']).toBeUndefined();
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(60);
    const log = await waitFor(() => (/"verdict":"blocked"/.test(harness.output().slice(from)) ? harness.output().slice(from) : undefined), { what: 'the blocked attempt in the log' });
    // One line an attempt, in order: the five guesses, then the right code refused.
    const attempts = log.split('\n').flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; address?: string; verdict?: string };
        return entry.msg === 'page: sign-in attempt' ? [entry] : [];
      } catch {
        return [];
      }
    });
    expect(attempts.map((entry) => entry.verdict)).toEqual(['wrong', 'wrong', 'wrong', 'wrong', 'wrong', 'blocked']);
    for (const entry of attempts) expect(entry.address).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(log).not.toContain(page.code);
    expect(log).not.toContain('guess-0');
  });
});

