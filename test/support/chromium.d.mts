/** The browser's executable: PANIC_PAIR_CHROMIUM, else Debian's /usr/bin/chromium. */
export const CHROMIUM: string;
/** A phone's viewport. */
export const PHONE: { width: number; height: number };
/** Headless, and nothing that talks to the internet. */
export const CHROMIUM_ARGS: readonly string[];
/** Playwright's options for a phone's browser context: Chromium as above, touch, at 1x. */
export function phoneContext(options?: { locale?: string; ignoreHTTPSErrors?: boolean }): import('playwright-core').BrowserContextOptions & { executablePath: string; headless: boolean; args: string[] };
