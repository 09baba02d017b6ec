import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS, launchPhone } from '../support/browser.js';

// A phone that speaks one language, as a phone sets it: Chromium's locale gives both the
// Accept-Language header and navigator.languages. Everything a test does goes through the page's
// stable hooks (name, data-action, data-state), never through words of one language.

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface LanguagePhone {
  page: Page;
  signIn(origin: string, code: string): Promise<void>;
  /** axe-core's serious and critical findings, Label in Name (WCAG 2.5.3) included. */
  seriousFindings(): Promise<string[]>;
  /** What overflows: the page wider than the screen, or a control or label whose text is cut off. */
  overflows(): Promise<string[]>;
  /** A screenshot of what the phone's screen shows, for the docs or test-artifacts/web/. */
  screenshot(file: string, options?: { keepScroll?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export const WAIT = { timeout: 15_000 };

/** Run in the page: what runs wider than the screen, or a text cut off by its own box. */
const OVERFLOWS = `(() => {
  const found = [];
  if (document.documentElement.scrollWidth > window.innerWidth) found.push('the page is ' + document.documentElement.scrollWidth + 'px wide on a ' + window.innerWidth + 'px screen');
  for (const node of document.querySelectorAll('button, label, h1, h2, p, li, dt, dd, strong, span, option')) {
    if (node.offsetParent === null || node.clientWidth === 0) continue;
    const box = node.getBoundingClientRect();
    if (node.scrollWidth > node.clientWidth + 1 || box.right > window.innerWidth + 1 || box.left < -1) {
      found.push(node.tagName.toLowerCase() + ' "' + (node.textContent || '').trim().slice(0, 60) + '" is cut off');
    }
  }
  return found;
})()`;

export async function openLanguagePhone(locale: string): Promise<LanguagePhone> {
  const { page, close } = await launchPhone({ locale });
  return {
    page,
    signIn: async (origin, code) => {
      await page.goto(origin);
      await page.locator('[name=code]').fill(code);
      await page.locator('[data-action=sign-in]').click();
      await page.locator('#live[data-state=live]').waitFor(WAIT);
    },
    seriousFindings: async () => {
      const run = `${AXE}\n;axe.run(document, { rules: { 'label-content-name-mismatch': { enabled: true } } }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`;
      return (await page.evaluate(run)) as string[];
    },
    overflows: async () => (await page.evaluate(OVERFLOWS)) as string[],
    screenshot: async (file, options = {}) => {
      if (!options.keepScroll) await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: path.join(ARTIFACTS, file) });
    },
    close,
  };
}

