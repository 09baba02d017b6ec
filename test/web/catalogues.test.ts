import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_KINDS } from '../../src/errors.js';
import { ROOT } from '../support/binary.js';
import { scriptStrings } from './script-strings.js';

// The page's catalogues, one a language: each has exactly the English
// keys, the same placeholders, every plural form its language's rules name, and the glossary
// that fixes its terms; and the page's scripts say nothing that is not a catalogue key. What this
// file reports is what a new language still lacks.

const ASSETS = path.join(ROOT, 'src', 'web', 'assets');
type Message = string | Record<string, string>;
interface Catalogue {
  glossary: Record<string, string>;
  messages: Record<string, Message>;
}

const read = (file: string): string => readFileSync(path.join(ASSETS, file), 'utf8');
const catalogue = (language: string): Catalogue => JSON.parse(read(`i18n/${language}.json`)) as Catalogue;
const LANGUAGES = JSON.parse(/export const LANGUAGES = (\[[^\]]*\])/.exec(read('i18n.js'))?.[1]?.replace(/'/g, '"') ?? '[]') as string[];
const english = catalogue('en');
const GLOSSARY_TERMS = ['button', 'pair', 'link', 'pairing window', 'installer code', 'customer', 'household', 'missing', 'battery', 'imitated'];
const CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'];

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((found) => found[1] ?? '').sort();
const forms = (message: Message): string[] => (typeof message === 'string' ? [message] : Object.values(message));

describe("the page's catalogues", () => {
  it('offers its ten languages, each with a catalogue, and no catalogue it does not offer', () => {
    expect(LANGUAGES).toEqual(expect.arrayContaining(['en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt', 'sv', 'ar']));
    const files = readdirSync(path.join(ASSETS, 'i18n')).map((file) => file.replace(/\.json$/, ''));
    expect(files.sort()).toEqual([...LANGUAGES].sort());
  });

  describe.each(LANGUAGES)('%s', (language) => {
    const own = catalogue(language);

    it('starts with a glossary that fixes every term', () => {
      expect(Object.keys(own)[0]).toBe('glossary');
      expect(Object.keys(own.glossary).sort()).toEqual([...GLOSSARY_TERMS].sort());
      for (const term of GLOSSARY_TERMS) expect(own.glossary[term]?.trim(), `glossary: ${term}`).toBeTruthy();
    });

    it('has exactly the English keys, none empty', () => {
      const missing = Object.keys(english.messages).filter((key) => !(key in own.messages));
      const extra = Object.keys(own.messages).filter((key) => !(key in english.messages));
      expect({ missing, extra }).toEqual({ missing: [], extra: [] });
      for (const [key, message] of Object.entries(own.messages)) {
        for (const form of forms(message)) expect(form.trim(), key).not.toBe('');
      }
    });

    it('uses the same placeholders as English', () => {
      const wrong: string[] = [];
      for (const [key, message] of Object.entries(own.messages)) {
        const source = english.messages[key];
        if (source === undefined) continue;
        const expected = new Set(forms(source).flatMap(placeholders));
        if (typeof message === 'string') {
          if (placeholders(message).join() !== [...expected].sort().join()) wrong.push(`${key}: ${message}`);
          continue;
        }
        // A plural form may say its number in words ("one problem", Arabic's dual), never another placeholder.
        for (const form of Object.values(message)) {
          const used = placeholders(form);
          const lacking = [...expected].filter((name) => name !== 'count' && !used.includes(name));
          if (used.some((name) => !expected.has(name)) || lacking.length > 0) wrong.push(`${key}: ${form}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it('gives every plural message each category Intl.PluralRules names for the language', () => {
      const needed = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
      const wrong: string[] = [];
      for (const [key, message] of Object.entries(own.messages)) {
        const source = english.messages[key];
        if (typeof source !== typeof message) wrong.push(`${key}: plural in one language, not in the other`);
        if (typeof message === 'string') continue;
        for (const category of needed) if (!(category in message)) wrong.push(`${key}: no "${category}"`);
        for (const category of Object.keys(message)) if (!CATEGORIES.includes(category)) wrong.push(`${key}: "${category}" is no plural category`);
      }
      expect(wrong).toEqual([]);
    });
  });

  it('counts six plural forms in Arabic and four in Polish, as the page picks them', () => {
    expect(new Intl.PluralRules('ar').resolvedOptions().pluralCategories).toHaveLength(6);
    expect(new Intl.PluralRules('pl').resolvedOptions().pluralCategories).toHaveLength(4);
    const problems = catalogue('pl').messages['health.problems'] as Record<string, string>;
    const rules = new Intl.PluralRules('pl');
    expect([1, 2, 5, 22, 25].map((count) => problems[rules.select(count)]?.replace('{count}', String(count)))).toEqual([
      '⚠ Hub wymaga uwagi: 1 problem.',
      '⚠ Hub wymaga uwagi: 2 problemy.',
      '⚠ Hub wymaga uwagi: 5 problemów.',
      '⚠ Hub wymaga uwagi: 22 problemy.',
      '⚠ Hub wymaga uwagi: 25 problemów.',
    ]);
  });
});

// ---- the page's scripts and markup say nothing of their own ----

/** Selectors and other strings of the page that look like words but are no text a person reads. */
const NOT_TEXT = new Set(['main button, main input, main select']);
/** A run of two words, or a capitalised word: what reads as prose, not as a code (`linked`, `click`). */
const PROSE = /[A-Za-z]{2,}\s+[A-Za-z]{2,}|^[A-Z][a-z]+/;

describe("the page's scripts", () => {
  const keys = Object.keys(english.messages);
  it('words every error kind the daemon can answer with: a failure never shows as its bare code', () => {
    expect(ERROR_KINDS.filter((kind) => !keys.includes(`reason.${kind}`))).toEqual([]);
  });

  it.each(readdirSync(ASSETS).filter((file) => file.endsWith('.js')))('%s: every text is a catalogue key, and every key it asks for exists', (file) => {
    const wrong: string[] = [];
    for (const literal of scriptStrings(read(file))) {
      const isKey = keys.includes(literal.text) || (literal.prefix && keys.some((key) => key.startsWith(literal.text)));
      if (literal.key && !isKey) wrong.push(`line ${literal.line}: t('${literal.text}') is no key of en.json`);
      else if (!isKey && !NOT_TEXT.has(literal.text) && PROSE.test(literal.text)) wrong.push(`line ${literal.line}: "${literal.text}" is text outside the catalogue`);
    }
    expect(wrong).toEqual([]);
  });

  it.each(['index.html', 'sign-in.html'])('%s: every data-i18n names a key', (file) => {
    const named = [...read(file).matchAll(/data-i18n="([^"]+)"/g)].map((found) => found[1] ?? '');
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((key) => !keys.includes(key))).toEqual([]);
  });

  it('keeps room for the optional Button key field and the imitated problem in every language', () => {
    for (const language of LANGUAGES) {
      const own = catalogue(language).messages;
      expect(own['pair.key'], language).toBeTruthy();
      expect(own['problem.imitated'], language).toBeTruthy();
    }
  });
});
