import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBinary } from '../support/binary.js';
import { startHarness } from '../support/daemon-harness.js';
import { pageSettings, postCode, rawRequest, signIn } from '../support/web-page.js';

// `panic-pair run` with the page on: exit 2 naming the setting for a missing or loose code file;
// HTTPS with a certificate and key, and its cookie then marked Secure.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-web-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function daemonEnv(extra: Record<string, string>): Record<string, string> {
  const token = path.join(dir, 'token');
  writeFileSync(token, 'tok\n', { mode: 0o600 });
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    PANIC_PAIR_CONFIG: '',
    PANIC_PAIR_API_URL: 'http://127.0.0.1:9',
    PANIC_PAIR_API_TOKEN_FILE: token,
    PANIC_PAIR_CUSTOMER_ID: '42',
    PANIC_PAIR_STATE_DIR: path.join(dir, 'state'),
    PANIC_PAIR_BLE: 'off',
    ...extra,
  };
}

describe('`run` with the page on', () => {
  it('exits 2 naming PANIC_PAIR_WEB_CODE_FILE when it is missing or others can read it', async () => {
    const missing = await runBinary(['run'], daemonEnv({ PANIC_PAIR_WEB_LISTEN: '127.0.0.1:8080' }), { timeoutMs: 20_000 });
    expect(missing.code).toBe(2);
    expect(missing.stderr + missing.stdout).toContain('PANIC_PAIR_WEB_CODE_FILE is required');
    const loose = path.join(dir, 'code');
    writeFileSync(loose, 'secret-label-code\n');
    chmodSync(loose, 0o640);
    const refused = await runBinary(['run'], daemonEnv({ PANIC_PAIR_WEB_LISTEN: '127.0.0.1:8080', PANIC_PAIR_WEB_CODE_FILE: loose }), { timeoutMs: 20_000 });
    expect(refused.code).toBe(2);
    // Printed once on stderr, as a loose token or password file is: no log line on stdout.
    expect(refused.stderr).toContain(`PANIC_PAIR_WEB_CODE_FILE ${loose} is readable by group or others (mode 0640): chmod 600 ${loose}\n`);
    expect(refused.stdout).toBe('');
    expect(refused.stderr + refused.stdout).not.toContain('secret-label-code');
  }, 60_000);

  it('serves the page over HTTPS with a certificate and key, with a Secure cookie', async () => {
    const certFile = path.join(dir, 'cert.pem');
    const keyFile = path.join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
    chmodSync(keyFile, 0o600);
    const page = await pageSettings({ tls: { certFile, keyFile } });
    const harness = await startHarness({ env: page.env });
    try {
      const home = await rawRequest(page.port, { https: true });
      expect(home.status).toBe(200);
      expect(home.body).toContain('Installer code');
      const reply = await postCode(page, page.code, true);
      expect(String([reply.headers['set-cookie']].flat()[0])).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
      // `status` gives the page's address: its scheme and the one address it listens on.
      expect((await harness.status()).page).toEqual({ url: page.origin, ipUrls: [] });
      const cookie = await signIn(page, true);
      const signedIn = (await rawRequest(page.port, { https: true, headers: { cookie } })).body;
      expect(signedIn).toContain('Button ID');
      // The Button key field: taken over HTTPS, checked as `pair --key-file` is, never echoed.
      expect(signedIn).toMatch(/<input id="button-key" name="key" type="password"/);
      const pair = (key: string) =>
        rawRequest(page.port, { https: true, method: 'POST', path: '/api/pair', headers: { cookie, origin: page.origin, 'content-type': 'application/json' }, body: JSON.stringify({ deviceId: 'KEYED-1', key }) });
      const bad = await pair('not-a-key-0123456789');
      expect(bad.status).toBe(400);
      expect(bad.body).toContain('32 hex digits');
      expect(bad.body).not.toContain('not-a-key-0123456789');
      expect((await pair('5ac4b7d9e0f1a2b3c4d5e6f708192a3b')).status).toBe(202);
    } finally {
      await harness.close();
    }
  }, 60_000);

  it("listening on every address: `status` names the hub's .local name, its IPv4 addresses and the port", async () => {
    const { env, code, port } = await pageSettings();
    const harness = await startHarness({ env: { ...env, PANIC_PAIR_WEB_LISTEN: `0.0.0.0:${port}` } });
    try {
      const report = await harness.status();
      expect(report.page?.url).toBe(`http://${hostname().toLowerCase()}.local:${port}`);
      expect(report.page?.ipUrls.every((url) => new RegExp(`^http://\\d+\\.\\d+\\.\\d+\\.\\d+:${port}$`).test(url))).toBe(true);
      expect((await rawRequest(port)).status).toBe(200);
      const printed = await harness.cli(['status']);
      expect(printed.stdout).toMatch(new RegExp(`^page +open http://${hostname().toLowerCase()}\\.local:${port} on a phone on the hub's network`, 'm'));
      expect(printed.stdout).not.toContain(code);
    } finally {
      await harness.close();
    }
  }, 60_000);

  it('refuses a button key sent over plain HTTP, unread', async () => {
    const page = await pageSettings();
    const harness = await startHarness({ env: page.env });
    try {
      const cookie = await signIn(page);
      const reply = await rawRequest(page.port, { method: 'POST', path: '/api/pair', headers: { cookie, origin: page.origin, 'content-type': 'application/json' }, body: JSON.stringify({ deviceId: 'KEYED-2', key: '5ac4b7d9e0f1a2b3c4d5e6f708192a3b' }) });
      expect(reply.status).toBe(400);
      expect(reply.body).toContain('only over HTTPS');
      expect(reply.body).not.toContain('5ac4b7d9e0f1a2b3c4d5e6f708192a3b');
      expect(harness.output()).not.toContain('5ac4b7d9e0f1a2b3c4d5e6f708192a3b');
    } finally {
      await harness.close();
    }
  }, 60_000);
});
