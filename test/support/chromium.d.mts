/** The browser's executable: PANIC_PAIR_CHROMIUM, else Debian's /usr/bin/chromium. */
export const CHROMIUM: string;
/** A phone's viewport. */
export const PHONE: { width: number; height: number };
/** Headless, and nothing that talks to the internet. */
export const CHROMIUM_ARGS: readonly string[];
