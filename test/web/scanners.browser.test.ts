import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPhone, type PhoneBrowser } from '../support/browser.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { makeCertificates } from '../support/test-ca.js';
import { pageSettings, type PageSettings } from '../support/web-page.js';
import { DEMO_HOUSEHOLD_SEED } from '../../src/simulator/seed.js';
// @ts-expect-error: the HTTP Observatory ships JavaScript without declarations
import { Session } from '@mdn/mdn-http-observatory/src/retriever/session.js';
// @ts-expect-error: as above
import { Requests } from '@mdn/mdn-http-observatory/src/types.js';
// @ts-expect-error: as above
import { parseHttpEquivHeaders } from '@mdn/mdn-http-observatory/src/retriever/utils.js';
// @ts-expect-error: as above
import { contentSecurityPolicyTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/csp.js';
// @ts-expect-error: as above
import { cookiesTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/cookies.js';
// @ts-expect-error: as above
import { referrerPolicyTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/referrer-policy.js';
// @ts-expect-error: as above
import { xContentTypeOptionsTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/x-content-type-options.js';
// @ts-expect-error: as above
import { xFrameOptionsTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/x-frame-options.js';

// The installer's page as scanners see it, served over HTTPS with its certificate by
// a real daemon: MDN's HTTP Observatory grades its headers and cookies with its own retriever and
// tests, signed out and signed in; axe-core, in the real Chromium, checks it at a phone's size and
// a desktop's, signed out and signed in.

interface ObservatoryOutput {
  pass: boolean;
  result: string;
}
type ObservatoryTest = (requests: unknown) => ObservatoryOutput;
interface ObservatorySession {
  url: URL;
  jar: unknown;
  response: { data: unknown; headers: Record<string, unknown>; httpEquiv?: unknown } | null;
  clientInstanceRecordingRedirects: { post(url: string, body: string, config: { headers: Record<string, string> }): Promise<{ data: unknown; headers: Record<string, unknown>; status: number }> };
}

const GRADED: Record<string, ObservatoryTest> = {
  'content-security-policy': contentSecurityPolicyTest,
  cookies: cookiesTest,
  'referrer-policy': referrerPolicyTest,
  'x-content-type-options': xContentTypeOptionsTest,
  'x-frame-options': xFrameOptionsTest,
};
const WAIT = { timeout: 15_000 };
const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let harness: DaemonHarness;
let settings: PageSettings;
let browser: PhoneBrowser;

beforeAll(async () => {
  const tls = makeCertificates(mkdtempSync(path.join(tmpdir(), 'panic-pair-scan-')), ['IP:127.0.0.1', 'DNS:localhost']);
  settings = await pageSettings({ tls: { certFile: tls.certFile, keyFile: tls.keyFile } });
  harness = await startHarness({ env: settings.env, seed: DEMO_HOUSEHOLD_SEED });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

/** The Observatory's own retrieval of the page (its certificate is not one it knows: it goes on unverified, as for any site). */
async function retrieve(signedIn: boolean): Promise<unknown> {
  const url = new URL(`${settings.origin}/`);
  const session = (await Session.fromUrl(url)) as ObservatorySession;
  expect(session.response, 'the Observatory reached the page').not.toBeNull();
  if (signedIn) {
    // Signed in through the form, as a browser does: the cookie lands in the Observatory's jar
    // with the attributes the daemon set, and the redirect to the page is followed.
    const reply = await session.clientInstanceRecordingRedirects.post(`${settings.origin}/login`, `code=${settings.code}`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: settings.origin },
    });
    expect(reply.status).toBe(200);
    session.response = { ...reply, verified: false } as ObservatorySession['response'];
  }
  const requests = new Requests(url.hostname);
  requests.session = session;
  requests.responses.auto = session.response;
  requests.responses.auto.httpEquiv = parseHttpEquivHeaders(String(session.response?.data ?? ''), url.href);
  return requests;
}

describe("the installer's page, graded by MDN's HTTP Observatory", () => {
  it.each([['signed out', false], ['signed in', true]] as const)('passes its header and cookie tests %s', async (_name, signedIn) => {
    const requests = await retrieve(signedIn);
    const results = Object.fromEntries(Object.entries(GRADED).map(([name, test]) => [name, test(requests)]));
    for (const [name, output] of Object.entries(results)) expect({ name, pass: output.pass, result: output.result }).toMatchObject({ name, pass: true });
    // The session cookie, when there is one, is Secure, HttpOnly and SameSite.
    if (signedIn) expect(results.cookies?.result).toBe('cookies-secure-with-httponly-sessions-and-samesite');
    else expect(results.cookies?.result).toBe('cookies-not-found');
  });
});

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

async function seriousViolations(): Promise<string[]> {
  // Evaluated by the browser's debugging protocol: the page's CSP (no inline script) stays as served.
  const { violations, passes } = (await browser.page.evaluate(`${AXE}\n;axe.run(document).then((r) => ({ violations: r.violations, passes: r.passes.length }))`)) as { violations: AxeViolation[]; passes: number };
  expect(passes, 'axe checked the page').toBeGreaterThan(10);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe("the installer's page, checked by axe-core in Chromium", () => {
  const sizes = [
    ['a phone (390 x 844)', { width: 390, height: 844 }],
    ['a desktop (1280 x 800)', { width: 1280, height: 800 }],
  ] as const;

  it.each(sizes)('has no serious or critical violation signed out, on %s', async (_name, size) => {
    browser ??= await openPhone({ certificateTrusted: true });
    await browser.page.setViewportSize(size);
    await browser.page.goto(settings.origin);
    await browser.page.getByLabel('Installer code').waitFor(WAIT);
    expect(await seriousViolations()).toEqual([]);
  });

  it.each(sizes)('has no serious or critical violation signed in, on %s', async (_name, size) => {
    browser ??= await openPhone({ certificateTrusted: true });
    await browser.page.setViewportSize(size);
    await browser.page.goto(settings.origin);
    if (await browser.page.getByLabel('Installer code').isVisible()) {
      await browser.page.getByLabel('Installer code').fill(settings.code);
      await browser.page.getByRole('button', { name: 'Sign in' }).click();
    }
    await browser.page.locator('#live').filter({ hasText: 'Live' }).waitFor(WAIT);
    await browser.page.locator('#health-summary').filter({ hasText: 'healthy' }).waitFor(WAIT);
    expect(await seriousViolations()).toEqual([]);
  });
});
