import { afterAll, beforeAll } from 'vitest';
import { startHarness, type DaemonHarness } from './daemon-harness.js';
import { pageSettings, type PageSettings } from './web-page.js';

// One real daemon serving its installer's page for a whole test file: started before the file's
// tests with fresh page settings, closed after them.

export interface ServedPage {
  harness: DaemonHarness;
  page: PageSettings;
}

/** Registers the file's hooks; `started` is given the daemon and its page before the first test. */
export function servePageForFile(started: (served: ServedPage) => void): void {
  let harness: DaemonHarness | undefined;
  beforeAll(async () => {
    const page = await pageSettings();
    harness = await startHarness({ env: page.env });
    started({ harness, page });
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
  });
}
