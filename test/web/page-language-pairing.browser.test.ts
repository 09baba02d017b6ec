import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { pageSettings, type PageSettings } from '../support/web-page.js';
import { openLanguagePhone, WAIT, type LanguagePhone } from './language-phone.js';

// A whole pairing in German and in Arabic, against a real daemon, a real broker and the simulated
// API: a phone in that language signs in, sees the button it presses, pairs it, and reads each
// step in its language, through the page's stable hooks only. Its screens, in
// test-artifacts/web/, are the pictures of docs/engineer/languages.md.

const CASES = [
  { locale: 'de-DE', language: 'de', deviceId: 'DE7F3A', checking: 'Abonnement des Kunden wird geprüft', wrong: 'Dieser Code stimmt nicht. Prüfen Sie das Etikett am Hub.', linked: /Verknüpft: Verknüpfungs-ID \d+/, english: /Linked|Checking|Waiting/ },
  { locale: 'ar-SA', language: 'ar', deviceId: 'AR2B4D', checking: 'جارٍ التحقق من اشتراك العميل', wrong: 'هذا الرمز غير صحيح. راجع الملصق على الوحدة المركزية.', linked: /تم الربط: رقم الربط \d+/, english: /Linked|Checking|Waiting/ },
];

describe.each(CASES)('a whole pairing in $language', ({ locale, language, deviceId, checking, wrong, linked, english }) => {
  let harness: DaemonHarness;
  let settings: PageSettings;
  let phone: LanguagePhone;

  beforeAll(async () => {
    settings = await pageSettings();
    harness = await startHarness({ env: settings.env });
    phone = await openLanguagePhone(locale);
  }, 60_000);

  afterAll(async () => {
    await phone?.close();
    await harness?.close();
  });

  it('reaches data-state="linked", each step in the language', { timeout: 60_000 }, async () => {
    const { page } = phone;
    await page.goto(settings.origin);
    await page.locator(`html[lang=${language}]`).waitFor({ state: 'attached', ...WAIT });
    // A wrong code is refused in the language too.
    await page.locator('[name=code]').fill('not-the-code');
    await page.locator('[data-action=sign-in]').click();
    await page.getByRole('alert').filter({ hasText: wrong }).waitFor(WAIT);
    await phone.screenshot(`pairing-${language}-1-sign-in.png`);
    await phone.signIn(settings.origin, settings.code);
    await page.locator('#health-summary[data-state=healthy]').waitFor(WAIT);

    await harness.announce(deviceId, { rssi: -52 });
    const heard = page.locator(`[data-action=choose][data-device="${deviceId}"]`);
    await heard.waitFor(WAIT);
    await phone.screenshot(`pairing-${language}-2-heard.png`);
    await heard.click();
    expect(await page.locator('[name=deviceId]').inputValue()).toBe(deviceId);
    await page.locator('[data-action=pair]').click();

    const status = page.locator('[role=status]');
    await page.locator('[role=status][data-state=linked]').waitFor(WAIT);
    const steps = (await status.textContent()) ?? '';
    expect(steps).toContain(checking);
    expect(steps).toMatch(linked);
    expect(steps).not.toMatch(english);
    expect((await harness.devices()).find((device) => device.deviceId === deviceId)).toMatchObject({ state: 'linked' });
    await status.scrollIntoViewIfNeeded();
    await phone.screenshot(`pairing-${language}-3-linked.png`, { keepScroll: true });
  });
});
