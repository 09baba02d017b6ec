import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPhone, type PhoneBrowser } from '../support/browser.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { pageSettings, type PageSettings } from '../support/web-page.js';

// The page pairs through an API outage as the CLI does, and says so:
// which API, and when it tries again. The API is taken down and brought
// back on the same address (the harness's outage): connections refused while it is away.

const WAIT = /the API at http:\/\/127\.0\.0\.1:\d+ cannot be reached; trying again in \d+ sec/;

let harness: DaemonHarness;
let settings: PageSettings;
let phone: PhoneBrowser;

beforeAll(async () => {
  settings = await pageSettings();
  harness = await startHarness({ env: settings.env });
  phone = await openPhone();
}, 60_000);

afterAll(async () => {
  await phone?.close();
  await harness?.close();
});

const WAIT_UI = { timeout: 30_000 };

describe('the page while the panic-api is down', () => {
  it('shows each wait of a pairing as text, then the link once the API is back', { timeout: 120_000 }, async () => {
    const { page } = phone;
    await phone.signIn(settings.origin, settings.code, WAIT_UI);

    await harness.announceSeen('OUTAGE1');
    const bringBack = await harness.takeApiDown();
    await page.getByLabel('Button ID').fill('OUTAGE1');
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    const steps = page.locator('#pair-steps');
    await steps.filter({ hasText: WAIT }).waitFor(WAIT_UI);
    expect(await steps.textContent()).toContain('Linking with the panic-api');
    await phone.screenshot('outage-wait');

    const back = await bringBack();
    await steps.filter({ hasText: /Linked: link id \d+/ }).waitFor(WAIT_UI);
    expect(await steps.textContent()).not.toMatch(WAIT);
    expect(back.stats().postsByDevice.OUTAGE1).toBe(1);
  });
});
