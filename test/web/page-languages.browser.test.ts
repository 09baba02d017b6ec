import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { silentLogger } from '../../src/log/logger.js';
import type { DeviceRow } from '../../src/supervision/types.js';
import { startWebPage, type WebPage } from '../../src/web/index.js';
import { fakeHandlers, linkedRecord, sampleStatus, untilAborted } from '../control/fake-daemon.js';
import { ROOT } from '../support/binary.js';
import { openLanguagePhone, WAIT, type LanguagePhone } from './language-phone.js';

// The page in each of its languages, in a real Chromium whose locale is
// set as a phone sets it, with the page full: buttons heard now, a pairing under way, checks run,
// a missing button, a low battery. For each: <html lang> and dir, no English phrase left, nothing
// cut off or wider than the screen at 390 x 844 and 1280 x 800, and nothing serious or critical
// for axe-core. The daemon's answers are made up, as the control tests make them.

const CODE = 'hub-label-4711';
const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt', 'sv', 'ar'];
/** A phone's locale for each: a region, as phones send it; the page takes the language. */
const LOCALES: Record<string, string> = { en: 'en-GB', de: 'de-DE', fr: 'fr-FR', es: 'es-ES', it: 'it-IT', nl: 'nl-NL', pl: 'pl-PL', pt: 'pt-PT', sv: 'sv-SE', ar: 'ar-SA' };

const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();
const quiet = { battery: null, batteryLow: false, deadlineSeconds: 3600 };
const devices: DeviceRow[] = [
  { ...linkedRecord('MISSING1', 2), ...quiet, supervision: 'missing', lastHeard: ago(2 * 3_600_000 + 10 * 60_000) },
  { ...linkedRecord('LOWBAT1', 3), ...quiet, supervision: 'online', lastHeard: ago(3 * 60_000), battery: 15, batteryLow: true },
  { ...linkedRecord('ONLINE1', 1), ...quiet, supervision: 'online', lastHeard: ago(40_000), battery: 80 },
  { ...linkedRecord('TRIGGER1', 4), ...quiet, supervision: 'unsupervised', lastHeard: null, deadlineSeconds: null },
  { deviceId: 'FAILED1', state: 'failed', customerId: 42, source: 'mqtt', updatedAt: '2025-03-01T09:00:00.000Z', error: 'the API timed out' },
];
const problems = ['button MISSING1 missing for 2 h 10 min (last heard 09:14)', 'button LOWBAT1 battery 15 % (low)'];
const buttons = { linked: 4, online: 2, missing: 1, unknown: 0, unsupervised: 1, batteryLow: 1 };
const heard = () => [
  { deviceId: '7F3A9C', source: 'mqtt', rssi: -50, lastSeen: new Date().toISOString(), ageMs: 1_000, state: 'linked' as const },
  { deviceId: 'B00C2A', source: 'ble', rssi: -74, lastSeen: ago(25_000), ageMs: 25_000 },
];

/**
 * English phrases of the catalogue that a page in another language must not show: each message's
 * text between placeholders, of at least two words or one long word, unless the language's own
 * catalogue says the same (a command, "Bluetooth", "MQTT").
 */
function englishPhrases(language: string): string[] {
  const read = (code: string) => JSON.parse(readFileSync(path.join(ROOT, 'src/web/assets/i18n', `${code}.json`), 'utf8')) as { messages: Record<string, string | Record<string, string>> };
  const texts = (code: string) => Object.values(read(code).messages).flatMap((message) => (typeof message === 'string' ? [message] : Object.values(message)));
  const own = texts(language).join('\n');
  const phrases = texts('en')
    .flatMap((text) => text.split(/\{\w+\}|[✓✗⚠●…·–▶()":;,.?!“”]/))
    .map((part) => part.trim())
    .filter((part) => /[a-z]{2,}\s+[a-z]{2,}/i.test(part) || /^[A-Za-z]{6,}$/.test(part));
  return [...new Set(phrases)].filter((phrase) => !own.includes(phrase));
}

let web: WebPage;

beforeAll(async () => {
  const handlers = fakeHandlers({
    devices: () => devices,
    status: () => ({ ...sampleStatus(), healthy: false, problems, buttons }),
    household: async () => [
      { customerId: 42, entitled: true, role: 'hub' },
      { customerId: 43, entitled: true, role: 'dependant' },
    ],
    // A pairing that reaches the subscription check and stays there: the page shows it under way.
    pair: async (deviceId, options) => {
      options.onProgress?.({ deviceId, step: 'checking', customerId: 42 });
      return untilAborted(options.signal ?? new AbortController().signal);
    },
  });
  web = await startWebPage({
    config: { host: '127.0.0.1', port: 0, codeFile: 'unused: the code is given' },
    secrets: { code: new Secret(CODE) },
    handlers: {
      ...handlers,
      heard,
      check: async () => ({ ok: false, checks: [{ name: 'configuration', ok: true, detail: 'ok' }, { name: 'mqtt', ok: false, detail: 'refused', fix: 'x' }, { name: 'ble', ok: true, skipped: true, detail: 'off' }] }),
      onChange: () => {},
    },
    logger: silentLogger(),
  });
}, 60_000);

afterAll(async () => {
  await web?.close();
});

describe.each(LANGUAGES)('the page in %s', (language) => {
  let phone: LanguagePhone;
  beforeAll(async () => {
    phone = await openLanguagePhone(LOCALES[language] ?? language);
  }, 60_000);
  afterAll(async () => {
    await phone?.close();
  });

  it('signs in, shows everything in the language, and runs a pairing through the stable hooks', { timeout: 60_000 }, async () => {
    const { page } = phone;
    const [request] = await Promise.all([page.waitForRequest(web.url + '/'), page.goto(web.url)]);
    // The phone speaks the language both ways a page can hear it.
    expect(request.headers()['accept-language']).toMatch(new RegExp(`^${LOCALES[language]}`));
    expect(await page.evaluate('navigator.languages[0]')).toBe(LOCALES[language]);
    await page.locator(`html[lang=${language}]`).waitFor({ state: 'attached', ...WAIT });
    await phone.signIn(web.url, CODE);
    await page.locator('#health-summary[data-state=degraded]').waitFor(WAIT);
    await page.locator('[data-action=choose][data-device="7F3A9C"]').waitFor(WAIT);
    await page.locator('#device-list > li[data-state=missing]').waitFor(WAIT);
    // One pairing under way for every phone: the first starts it through the hooks.
    if (await page.locator('[data-action=pair]').isEnabled()) {
      await page.locator('[name=deviceId]').fill('PAIRME1');
      await page.locator('[data-action=pair]').click();
    }
    await page.locator('[role=status][data-state=checking]').waitFor(WAIT);
    await page.locator('[data-action=run-checks]').click();
    await page.locator('#checks-state[data-state=failed]').waitFor(WAIT);

    const html = await page.evaluate('({ lang: document.documentElement.lang, dir: document.documentElement.dir })');
    expect(html).toEqual({ lang: language, dir: language === 'ar' ? 'rtl' : 'ltr' });

    if (language !== 'en') {
      // The detector has something to find: the English of every part of the page.
      const phrases = englishPhrases(language);
      expect(phrases.length).toBeGreaterThan(150);
      expect(phrases).toEqual(expect.arrayContaining(['Waiting for the button', 'Buttons heard now', 'Checking the customer\'s subscription']));
      const shown = (await page.evaluate(
        "[document.title, document.body.innerText, ...[...document.querySelectorAll('[aria-label]')].map((node) => node.getAttribute('aria-label')), ...[...document.querySelectorAll('option')].map((node) => node.textContent)].join('\\n')",
      )) as string;
      const left = englishPhrases(language).filter((phrase) => new RegExp(`(^|[^\\p{L}])${phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}])`, 'u').test(shown));
      expect(left, 'English left on the page').toEqual([]);
    }
    await phone.screenshot(`language-${language}.png`);
  });

  it('holds its layout at 390 x 844 and at 1280 x 800', async () => {
    const { page } = phone;
    expect(await phone.overflows()).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await phone.overflows()).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
  });

  it('has nothing serious or critical for axe-core, with the page full', async () => {
    expect(await phone.seriousFindings()).toEqual([]);
  });
});

describe('the Language control', () => {
  it('changes the language, and the phone keeps the choice across a reload and a new sign-in', { timeout: 60_000 }, async () => {
    const phone = await openLanguagePhone('en-US');
    try {
      const { page } = phone;
      await page.goto(web.url);
      await page.locator('html[lang=en]').waitFor({ state: 'attached', ...WAIT });
      await page.locator('[data-action=language]').selectOption('pl');
      await page.locator('html[lang=pl]').waitFor({ state: 'attached', ...WAIT });
      await phone.signIn(web.url, CODE);
      expect(await page.evaluate('document.documentElement.lang')).toBe('pl');
      await page.locator('[data-action=language]').selectOption('ar');
      await page.locator('html[dir=rtl]').waitFor({ state: 'attached', ...WAIT });
      await page.reload();
      await page.locator('#live[data-state=live]').waitFor(WAIT);
      expect(await page.evaluate('({ lang: document.documentElement.lang, dir: document.documentElement.dir })')).toEqual({ lang: 'ar', dir: 'rtl' });
      // Its name is the word for "Language" in the language shown.
      expect(await page.getByRole('combobox', { name: 'اللغة' }).count()).toBe(1);
      // Nothing secret is kept in the phone's storage: the choice alone.
      expect(await page.evaluate('JSON.stringify({ ...localStorage })')).toBe('{"panic-pair.language":"ar"}');
    } finally {
      await phone.close();
    }
  });
});
