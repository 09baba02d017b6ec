import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test as property } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { parseKeysFile, parseOneKey, readKeysFile } from '../../src/config/button-keys.js';
import { loadConfig } from '../../src/config/index.js';

// Keys as the installer gives them. A refusal names the setting and the
// line, never the key.

const KEY = '231d39c1d7cc1ab1aee224cd096db932';
const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusal = (run: () => unknown): { kind: string; message: string } => {
  try {
    run();
  } catch (error) {
    return error as { kind: string; message: string };
  }
  throw new Error('not refused');
};

describe('PANIC_PAIR_BUTTON_KEYS_FILE', () => {
  it('holds one `<deviceId> <key>` a line, with comments and blank lines', () => {
    const keys = parseKeysFile(`# shop batch 12\n\n7F3A9C ${KEY}\r\nBLU-2 ${KEY.toUpperCase()}\n`);
    expect([...keys.keys()]).toEqual(['7F3A9C', 'BLU-2']);
    expect(keys.get('7F3A9C')?.toString('hex')).toBe(KEY);
  });

  it('refuses a bad line naming the setting and the line, never the key', () => {
    const short = KEY.slice(0, 30);
    for (const [text, line] of [[`A1 ${KEY}\nA2 ${short}\n`, 2], [`A1 ${KEY} extra\n`, 1], [`# c\nA/1 ${KEY}`, 2], [`A1 ${KEY}\nA1 ${KEY}`, 2]] as const) {
      const error = refusal(() => parseKeysFile(text));
      expect(error.kind).toBe('config');
      expect(error.message).toContain(`PANIC_PAIR_BUTTON_KEYS_FILE line ${line}`);
      expect(error.message).not.toContain(short);
      expect(error.message).not.toContain(KEY.slice(4, 20));
    }
  });

  it('refuses a file others can read, with the chmod', () => {
    const file = path.join(dir, 'keys');
    writeFileSync(file, `A1 ${KEY}\n`);
    chmodSync(file, 0o644);
    const error = refusal(() => readKeysFile(file));
    expect(error.kind).toBe('config');
    expect(error.message).toContain('PANIC_PAIR_BUTTON_KEYS_FILE');
    expect(error.message).toContain(`chmod 600 ${file}`);
    chmodSync(file, 0o600);
    expect(readKeysFile(file).size).toBe(1);
  });

  it('is a setting of the environment and the config file', () => {
    const config = loadConfig({ env: { PANIC_PAIR_BUTTON_KEYS_FILE: '/etc/panic-pair/button-keys' }, defaultConfigFile: path.join(dir, 'absent.json') });
    expect(config.buttonKeysFile).toBe('/etc/panic-pair/button-keys');
  });
});

describe('pair --key-file', () => {
  it('takes one key, with a trailing newline', () => {
    expect(parseOneKey(`${KEY}\n`, '--key-file k').toString('hex')).toBe(KEY);
  });

  it('refuses anything else, never showing it', () => {
    for (const text of ['', `${KEY}\n${KEY}\n`, `${KEY}00`, 'not a key at all 0123456789abcdef']) {
      const error = refusal(() => parseOneKey(text, '--key-file k'));
      expect(error.kind).toBe('config');
      expect(error.message).toMatch(/^--key-file k must hold/);
      if (text !== '') expect(error.message).not.toContain(text.trim().split('\n')[0]);
    }
  });
});

describe("a profile's keyRequired", () => {
  it('is true or false', () => {
    const file = path.join(dir, 'config.json');
    const profile = { name: 'shelly-blu', match: { serviceUuid: 'fcd2' }, deviceId: { from: 'address' }, keyRequired: true };
    writeFileSync(file, JSON.stringify({ profiles: [profile] }));
    expect(loadConfig({ env: { PANIC_PAIR_CONFIG: file } }).profiles[0]?.keyRequired).toBe(true);
    writeFileSync(file, JSON.stringify({ profiles: [{ ...profile, keyRequired: 'yes' }] }));
    expect(() => loadConfig({ env: { PANIC_PAIR_CONFIG: file } })).toThrow(/keyRequired.*true or false/);
  });
});

// Bad input, tried many times: whatever a keys file holds, it is read or
// refused as a configuration error, and a refusal never repeats a line of it.
const keyLike = fc.stringMatching(/^[0-9a-fA-F]{28,36}$/);
const line = fc.oneof(keyLike.map((key) => `A1 ${key}`), fc.string({ maxLength: 60 }), keyLike, fc.constant('# comment'));
property.prop([fc.array(line, { maxLength: 8 })])('a keys file is read or refused, never echoed', (lines) => {
  const text = lines.join('\n');
  try {
    parseKeysFile(text);
  } catch (error) {
    expect((error as { kind?: string }).kind).toBe('config');
    const message = (error as Error).message;
    for (const each of lines) {
      const key = each.split(/\s+/).find((field) => /^[0-9a-fA-F]{28,}$/.test(field));
      if (key !== undefined) expect(message).not.toContain(key);
    }
  }
});
