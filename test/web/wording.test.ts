import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/binary.js';

// How the page words numbers, durations, relative times and plurals (src/web/assets/i18n.js), run
// here in Node, whose Intl has no DurationFormat (as some phones' browsers): so the fallback built
// from NumberFormat's units and ListFormat is the one under test; Chromium's DurationFormat is
// exercised by the browser tests.

interface Wording {
  useLanguage(code: string, messages: Record<string, unknown>): void;
  pickLanguage(stored: string | null, preferred: readonly string[]): string;
  t(key: string, params?: Record<string, unknown>): string;
  duration(ms: number): string;
  ago(ms: number): string;
  percent(value: number): string;
}

const ASSETS = path.join(ROOT, 'src', 'web', 'assets');
const messagesOf = (language: string) => (JSON.parse(readFileSync(path.join(ASSETS, 'i18n', `${language}.json`), 'utf8')) as { messages: Record<string, unknown> }).messages;
let wording: Wording;

beforeAll(async () => {
  const module: unknown = await import(pathToFileURL(path.join(ASSETS, 'i18n.js')).href);
  wording = module as Wording;
});

describe("the page's wording", () => {
  it('picks the first of the phone languages it has, by language not region, else English; a stored choice first', () => {
    expect(wording.pickLanguage(null, ['de-AT', 'en-US'])).toBe('de');
    expect(wording.pickLanguage(null, ['ja-JP', 'pt-BR', 'fr'])).toBe('pt');
    expect(wording.pickLanguage(null, ['ja-JP', 'ko'])).toBe('en');
    expect(wording.pickLanguage('sv', ['de-DE'])).toBe('sv');
    expect(wording.pickLanguage('xx', ['nl-BE'])).toBe('nl');
  });

  it('says a duration without DurationFormat, from the language units', () => {
    expect(typeof (Intl as { DurationFormat?: unknown }).DurationFormat).toBe('undefined');
    const twoTen = 2 * 3_600_000 + 10 * 60_000;
    wording.useLanguage('en', messagesOf('en'));
    expect(wording.duration(twoTen)).toBe('2 hr, 10 min');
    expect(wording.duration(45_000)).toBe('45 sec');
    wording.useLanguage('de', messagesOf('de'));
    expect(wording.duration(twoTen)).toBe('2 Std., 10 Min.');
    expect(wording.t('live.missing', { duration: wording.duration(twoTen), time: '09:14' })).toBe('fehlt seit 2 Std., 10 Min. (zuletzt gehört 09:14)');
    wording.useLanguage('pl', messagesOf('pl'));
    expect(wording.duration(3 * 24 * 3_600_000 + 4 * 3_600_000)).toBe('3 dni i 4 godz.');
  });

  it('says relative times and percentages as the language does', () => {
    wording.useLanguage('de', messagesOf('de'));
    expect(wording.t('heard.ago', { ago: wording.ago(3 * 60_000) })).toBe('gehört vor 3 Minuten');
    expect(wording.percent(15)).toMatch(/^15\s%$/);
    wording.useLanguage('fr', messagesOf('fr'));
    expect(wording.percent(15)).toMatch(/^15\s%$/);
    wording.useLanguage('en', messagesOf('en'));
    expect(wording.t('heard.ago', { ago: wording.ago(3 * 60_000) })).toBe('heard 3 minutes ago');
  });

  it("chooses each plural form by the language's own rules: six in Arabic, four in Polish", () => {
    wording.useLanguage('ar', messagesOf('ar'));
    const arabic = [1, 2, 3, 11, 100].map((count) => wording.t('health.problems', { count }));
    expect(arabic[0]).toContain('مشكلة واحدة');
    expect(arabic[1]).toContain('مشكلتان');
    expect(arabic[2]).toMatch(/مشكلات\.$/);
    expect(arabic[3]).toMatch(/مشكلة\.$/);
    expect(new Set(arabic).size).toBe(5);
    wording.useLanguage('pl', messagesOf('pl'));
    expect([1, 3, 5, 22].map((count) => wording.t('count.missing', { count }))).toEqual(['1 zaginiony', '3 zaginione', '5 zaginionych', '22 zaginione']);
    wording.useLanguage('en', messagesOf('en'));
    expect([1, 2].map((count) => wording.t('health.problems', { count }))).toEqual(['⚠ The hub needs attention: 1 problem.', '⚠ The hub needs attention: 2 problems.']);
  });
});
