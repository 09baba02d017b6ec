// The example files and the documentation must keep up with the settings table.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS, SETTING_KEYS } from '../../src/config/index.js';
import { Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

const read = (name: string): string => readFileSync(new URL(`../../config/${name}`, import.meta.url), 'utf8');
/** The configuration reference; test/docs/configuration-reference.test.ts checks its table row by row. */
const reference = (): string => readFileSync(new URL('../../docs/reference/configuration.md', import.meta.url), 'utf8');
const fileKeys = SETTING_KEYS.flatMap((key) => (SETTINGS[key].fileKey === null ? [] : [SETTINGS[key].fileKey]));

describe('the settings table', () => {
  it('names each flag as the kebab case of its key, and the file key as the key', () => {
    for (const key of SETTING_KEYS) {
      const { flag, fileKey, env } = SETTINGS[key];
      if (flag !== null) expect(flag).toBe(`--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
      if (fileKey !== null) expect(fileKey).toBe(key);
      expect(env).toMatch(/^PANIC_PAIR_[A-Z0-9_]+$/);
    }
    expect(SETTINGS.apiToken.fileKey).toBeNull();
    expect(SETTINGS.apiToken.flag).toBeNull();
  });
});

describe('config.example.json', () => {
  const text = read('config.example.json');

  it('holds every config-file key and nothing else', () => {
    expect(Object.keys(JSON.parse(text) as object).sort()).toEqual([...fileKeys, 'profiles'].sort());
  });

  it('loads without error', () => {
    const file = scratch.file('config.json', text, 0o644);
    const config = scratch.load({ flags: { config: file } });
    expect(config).toMatchObject({ customerId: 42, apiUrl: 'https://api.example.com', runtimeDir: '/run/panic-pair' });
    expect(config.profiles.map((p) => p.name)).toEqual(['panic-button']);
  });
});

describe('panic-pair.env.example and the configuration reference', () => {
  it('mention every variable', () => {
    const env = read('panic-pair.env.example');
    const page = reference();
    for (const key of SETTING_KEYS) {
      expect(env).toContain(`#${SETTINGS[key].env}=`);
      expect(page).toContain(`\`${SETTINGS[key].env}\``);
    }
    for (const key of fileKeys) expect(page).toContain(`\`${key}\``);
  });
});
