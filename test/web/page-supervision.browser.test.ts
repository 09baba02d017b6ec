import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { silentLogger } from '../../src/log/logger.js';
import type { DeviceRow } from '../../src/supervision/types.js';
import { startWebPage, type WebPage } from '../../src/web/index.js';
import { fakeHandlers, linkedRecord, sampleStatus } from '../control/fake-daemon.js';
import { openPhone, type PhoneBrowser } from '../support/browser.js';

// Linked buttons on the installer's page: a missing one marked as
// such in words, first; each one's last-heard time and battery. The page and its live channel are
// real, in a real Chromium; only the daemon's answers are made up, as the control tests make them.

const CODE = 'hub-label-4711';
const WAIT = { timeout: 15_000 };
const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();
const missingSince = ago(2 * 3_600_000 + 10 * 60_000 + 20_000);
const quiet = { battery: null, batteryLow: false, deadlineSeconds: 3600 };
const devices: DeviceRow[] = [
  { ...linkedRecord('ONLINE1', 1), ...quiet, supervision: 'online', lastHeard: ago(3 * 60_000 + 10_000), battery: 80, updatedAt: '2025-03-02T10:00:00.000Z' },
  { ...linkedRecord('MISSING1', 2), ...quiet, supervision: 'missing', lastHeard: missingSince, battery: 15, batteryLow: true },
  { ...linkedRecord('TRIGGER1', 3), ...quiet, supervision: 'unsupervised', lastHeard: null, deadlineSeconds: null },
  { ...linkedRecord('UNKNOWN1', 4), ...quiet, supervision: 'unknown', lastHeard: null },
  { deviceId: 'FAILED1', state: 'failed', customerId: 42, source: 'mqtt', updatedAt: '2025-03-01T09:00:00.000Z', error: 'the API timed out' },
];
const buttons = { linked: 4, online: 1, missing: 1, unknown: 1, unsupervised: 1, batteryLow: 1 };
// What the daemon's status says of them (src/supervision/supervisor.ts's problems).
const problems = ['button MISSING1 missing for 2 h 10 min (last heard 09:14)', 'button MISSING1 battery 15 % (low)'];

let web: WebPage;
let phone: PhoneBrowser;

beforeAll(async () => {
  const handlers = fakeHandlers({ devices: () => devices, status: () => ({ ...sampleStatus(), healthy: false, problems, buttons }) });
  web = await startWebPage({
    config: { host: '127.0.0.1', port: 0, codeFile: 'unused: the code is given' },
    secrets: { code: new Secret(CODE) },
    handlers: { ...handlers, heard: () => [], check: async () => ({ ok: true, checks: [] }), onChange: () => {} },
    logger: silentLogger(),
  });
  phone = await openPhone();
}, 60_000);

afterAll(async () => {
  await phone?.close();
  await web?.close();
});

describe('linked buttons on the page', () => {
  it('marks a missing button as such, first, in words; shows when each was heard and its battery', async () => {
    const { page } = phone;
    await phone.signIn(web.url, CODE, WAIT);
    const list = page.locator('#device-list');
    await list.filter({ hasText: 'MISSING1' }).waitFor(WAIT);
    const rows = list.locator(':scope > li');
    expect(await rows.count()).toBe(5);

    const missing = rows.nth(0);
    expect(await missing.locator('strong').first().textContent()).toBe('MISSING1');
    const text = (await missing.textContent()) ?? '';
    // Worded by the browser's Intl (DurationFormat, DateTimeFormat) for the page's language: the
    // time alone when it was heard today, with its date when that was yesterday (a run just after
    // midnight). The browser runs in this process's time zone.
    const heardToday = new Date(missingSince).toDateString() === new Date().toDateString();
    const heardAt = heardToday ? String.raw`\d+:\d\d\s?[AP]M` : String.raw`[A-Z][a-z]{2} \d+, \d{4}, \d+:\d\d\s?[AP]M`;
    expect(text).toMatch(new RegExp(`⚠ missing for 2 hr, 10 min \\(last heard ${heardAt}\\)`));
    expect(text).toContain('⚠ battery 15% (low)');
    expect(text).toContain('⚠ linked, but missing');
    expect(text).not.toContain('✓ linked');

    const byId = (deviceId: string) => rows.filter({ has: page.locator('strong', { hasText: deviceId }) });
    expect(await byId('ONLINE1').textContent()).toMatch(/heard 3 minutes ago.*battery 80%/);
    expect(await byId('TRIGGER1').textContent()).toContain('not supervised: sends only when pressed');
    expect(await byId('UNKNOWN1').textContent()).toContain('unknown: not heard yet since it was linked or the hub started');
    // Not linked: nothing supervised, nothing said about hearing it.
    expect(await byId('FAILED1').textContent()).not.toMatch(/heard|battery|supervised/);

    // The hub's counts, in words, and the problem's fix.
    expect(await page.locator('#health-facts').textContent()).toContain('1 online, ⚠ 1 missing, 1 not known, 1 not supervised, ⚠ 1 battery low');
    const health = (await page.locator('#health-problems').textContent()) ?? '';
    expect(health).toMatch(/✗ button MISSING1 missing for 2 hr, 10 min \(last heard [^)]+\)Fix: Press the button near the hub/);
    expect(health).toMatch(/✗ button MISSING1 battery 15% \(low\)Fix: Replace the button's battery/);
    await phone.screenshot('supervision');
  });

  it('updates when a button was heard in place, so a Forget being confirmed is not lost', async () => {
    const { page } = phone;
    await page.getByRole('button', { name: 'Forget TRIGGER1' }).click();
    const confirm = page.getByRole('button', { name: 'Yes, forget TRIGGER1' });
    await confirm.waitFor(WAIT);
    // The very element, not one like it: a rebuilt list would lose a finger on its way to it.
    const held = await confirm.elementHandle();
    const online = devices.find((device) => device.deviceId === 'ONLINE1')!;
    online.lastHeard = new Date().toISOString();
    // The next snapshot (at most a beat away) carries the new words.
    await page.locator('#device-list > li', { hasText: 'ONLINE1' }).filter({ hasText: 'heard just now' }).waitFor(WAIT);
    expect(await held!.evaluate((node) => node.isConnected)).toBe(true);
    await page.getByRole('button', { name: 'Keep it' }).click();
  });
});
