import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './binary.js';
import { phoneContext } from './chromium.mjs';

// A real browser for the page's tests: Debian's chromium, headless, at a phone's size, with a
// fresh profile and nothing that talks to the internet. Screenshots go to test-artifacts/web/.

export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'web');

export interface PhoneBrowser {
  page: Page;
  /** Opens the page at `origin`, signs in with `code`, and waits until it says Live. */
  signIn(origin: string, code: string, wait: { timeout: number }): Promise<void>;
  /** Saves a full-page screenshot as test-artifacts/web/<name>.png. */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** A fresh Chromium profile at a phone's size; `close` ends the browser and removes the profile. */
export async function launchPhone(options: { locale?: string; ignoreHTTPSErrors?: boolean } = {}): Promise<{ page: Page; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), 'panic-pair-chromium-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  const context: BrowserContext = await chromium.launchPersistentContext(profile, phoneContext(options));
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** `certificateTrusted`: the page's own test certificate is accepted (a hub's self-signed one, as an installer accepts it once). */
export async function openPhone(options: { certificateTrusted?: boolean } = {}): Promise<PhoneBrowser> {
  const { page, close } = await launchPhone({ ignoreHTTPSErrors: options.certificateTrusted ?? false });
  return {
    page,
    signIn: async (origin, code, wait) => {
      await page.goto(origin);
      await page.getByLabel('Installer code').fill(code);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#live').filter({ hasText: 'Live' }).waitFor(wait);
    },
    screenshot: async (name) => {
      // From the top, so the sticky header sits where a phone shows it.
      await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    close,
  };
}
