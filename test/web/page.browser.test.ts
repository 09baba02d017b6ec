import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPhone, type PhoneBrowser } from '../support/browser.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { pageSettings, type PageSettings } from '../support/web-page.js';
import { DEMO_DEPENDANT_CUSTOMER_ID, DEMO_HOUSEHOLD_SEED } from '../../src/simulator/seed.js';

// An installer with a phone: the page in a real Chromium at 390 x 844, against a real daemon, a
// real broker and the simulated API. Each screen is saved in test-artifacts/web/.

let harness: DaemonHarness;
let settings: PageSettings;
let phone: PhoneBrowser;

beforeAll(async () => {
  settings = await pageSettings();
  harness = await startHarness({ env: settings.env, seed: DEMO_HOUSEHOLD_SEED });
  phone = await openPhone();
}, 60_000);

afterAll(async () => {
  await phone?.close();
  await harness?.close();
});

const WAIT = { timeout: 15_000 };

describe("the installer's page in a phone's browser", () => {
  it('signs in with the installer code and shows the health first', async () => {
    const { page } = phone;
    await page.goto(settings.origin);
    await phone.screenshot('1-sign-in');
    await page.getByLabel('Installer code').fill('not-the-code');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not right' }).waitFor(WAIT);
    await page.getByLabel('Installer code').fill(settings.code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#live').filter({ hasText: 'Live' }).waitFor(WAIT);
    await page.locator('#health-summary').filter({ hasText: 'healthy' }).waitFor(WAIT);
    await page.locator('#health-facts').filter({ hasText: 'active subscription' }).waitFor(WAIT);
    const dependant = page.locator('#household-list').filter({ hasText: `Customer ${DEMO_DEPENDANT_CUSTOMER_ID} (dependant) ✓ entitled` });
    await dependant.waitFor(WAIT);
    await page.getByRole('button', { name: 'Run the checks' }).click();
    await page.locator('#checks-state').filter({ hasText: 'Every check passed' }).waitFor(WAIT);
    expect(await page.locator('#checks-list').textContent()).toMatch(/✓ API token.*✓ API.*✓ MQTT/);
    await phone.screenshot('2-health');
  });

  it('shows a button announced over MQTT live, and pairs it for a dependant with each step up to linked', async () => {
    const { page } = phone;
    await harness.announce('7F3A9C', { rssi: -48 });
    // Its accessible name is its visible text (WCAG 2.5.3), so a speech user says what is seen.
    const heard = page.getByRole('button', { name: /^7F3A9C heard just now · ▮▮▮▮ -48 dBm · via mqtt/ });
    await heard.waitFor(WAIT);
    expect(await heard.textContent()).toContain('heard just now');
    await phone.screenshot('3-heard');
    await heard.click();
    expect(await page.getByLabel('Button ID').inputValue()).toBe('7F3A9C');
    await page.getByLabel('Customer').selectOption(String(DEMO_DEPENDANT_CUSTOMER_ID));
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await page.getByRole('status').filter({ hasText: /Linked: link id \d+/ }).waitFor(WAIT);
    expect(await page.getByRole('status').textContent()).toMatch(/Checking the customer's subscription.*Linking with the panic-api.*Linked/);
    const record = (await harness.devices()).find((device) => device.deviceId === '7F3A9C');
    expect(record).toMatchObject({ state: 'linked', customerId: DEMO_DEPENDANT_CUSTOMER_ID });
    await page.locator('#device-list').filter({ hasText: '7F3A9C' }).waitFor(WAIT);
    await phone.screenshot('4-paired');
  });

  it('pairs a button typed by its ID, waiting until it is pressed', async () => {
    const { page } = phone;
    await page.getByLabel('Button ID').fill('TYPED01');
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Waiting for the button: press it now (waits up to 2 min)' }).waitFor(WAIT);
    // One pairing at a time from the page: the button waits for this one to end.
    const pairing = page.getByRole('button', { name: 'Pairing…', exact: true });
    expect(await pairing.isDisabled()).toBe(true);
    await harness.announce('TYPED01', { rssi: -60 });
    await page.getByRole('status').filter({ hasText: /Linked: link id/ }).waitFor(WAIT);
    const steps = (await page.getByRole('status').textContent()) ?? '';
    expect(steps).toContain('✓ Heard the button');
    expect(steps).not.toContain('press it now');
    expect(await page.getByRole('button', { name: 'Pair', exact: true }).isEnabled()).toBe(true);
  });

  it('opens a pairing window with its countdown and shows a pressed button linked', async () => {
    const { page } = phone;
    await page.getByLabel('Customer').selectOption('42');
    await page.getByLabel('Window length').selectOption('30');
    await page.getByRole('button', { name: 'Open pairing window' }).click();
    await page.locator('#window-state').filter({ hasText: /Open for customer 42: \d+ sec left/ }).waitFor(WAIT);
    await harness.announce('WIN0001', { rssi: -40 });
    await page.locator('#window-outcomes').filter({ hasText: /WIN0001 linked/ }).waitFor(WAIT);
    expect((await harness.devices()).find((device) => device.deviceId === 'WIN0001')).toMatchObject({ state: 'linked', customerId: 42 });
    await phone.screenshot('5-window');
    // Its result in words once it closes: what was linked, and what was not.
    await page.locator('#window-state').filter({ hasText: 'Closed: linked WIN0001.' }).waitFor({ timeout: 60_000 });
  });

  it('forgets a device behind a confirmation', async () => {
    const { page } = phone;
    await page.getByRole('button', { name: 'Forget 7F3A9C' }).click();
    await page.getByRole('button', { name: 'Yes, forget 7F3A9C' }).waitFor(WAIT);
    await phone.screenshot('6-forget-confirm');
    await page.getByRole('button', { name: 'Yes, forget 7F3A9C' }).click();
    await page.getByRole('button', { name: 'Forget 7F3A9C' }).waitFor({ state: 'detached', ...WAIT });
    expect((await harness.devices()).some((device) => device.deviceId === '7F3A9C')).toBe(false);
    await phone.screenshot('7-devices');
  });

  it('says it is not live while the hub restarts, and comes back by itself', async () => {
    const { page } = phone;
    await harness.stop();
    await page.locator('#live').filter({ hasText: 'Not live' }).waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Open pairing window' }).isDisabled()).toBe(true);
    await phone.screenshot('8-not-live');
    await harness.restart();
    await page.locator('#live').filter({ hasText: /^● Live/ }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('button', { name: 'Open pairing window' }).isDisabled()).toBe(false);
  });

  it('signs out', async () => {
    const { page } = phone;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Installer code').waitFor(WAIT);
    expect(await page.content()).not.toContain('Button ID');
  });
});
