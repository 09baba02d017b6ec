// Debian's chromium as the page's tests and bench/web-page.mjs drive it: headless, at a phone's
// size, with nothing that talks to the internet. Plain JavaScript so that the bench loads it too.

export const CHROMIUM = process.env.PANIC_PAIR_CHROMIUM ?? '/usr/bin/chromium';
export const PHONE = { width: 390, height: 844 };
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Playwright's options for a phone's browser context: Chromium as above, touch, at 1x. */
export function phoneContext({ locale, ignoreHTTPSErrors = false } = {}) {
  return {
    executablePath: CHROMIUM,
    headless: true,
    viewport: PHONE,
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
    ...(locale === undefined ? {} : { locale }),
    ignoreHTTPSErrors,
    args: [...CHROMIUM_ARGS],
  };
}
