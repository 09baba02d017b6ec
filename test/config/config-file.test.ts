import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configError, Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

describe('the config file', () => {
  it('is an error when named but missing', () => {
    const missing = join(scratch.dir, 'missing.json');
    expect(configError(() => scratch.load({ env: { PANIC_PAIR_CONFIG: missing } })).message).toBe(
      `PANIC_PAIR_CONFIG ${missing} does not exist`,
    );
    expect(configError(() => scratch.load({ flags: { config: missing } })).message).toBe(
      `PANIC_PAIR_CONFIG (--config) ${missing} does not exist`,
    );
  });

  it('is optional at the default place', () => {
    expect(scratch.load().configFile).toBeUndefined();
  });

  it('names an unknown key, with a suggestion', () => {
    const file = scratch.config({ custmerId: 42, customer_id: 42, frobnicate: true }, 'typo.json');
    const message = configError(() => scratch.load({ flags: { config: file } })).message;
    expect(message).toContain(file);
    expect(message).toContain('"custmerId" (did you mean "customerId"?)');
    expect(message).toContain('"customer_id" (did you mean "customerId"?)');
    expect(message).toContain('"frobnicate"');
  });

  it('refuses the token itself, and points at apiTokenFile', () => {
    const file = scratch.config({ apiToken: 'file-token-value' }, 'token.json');
    const message = configError(() => scratch.load({ flags: { config: file } })).message;
    expect(message).toMatch(/apiToken .* is not accepted.*apiTokenFile/);
    expect(message).not.toContain('file-token-value');
  });

  it('names the file when it is not JSON, without quoting it', () => {
    const file = scratch.file('broken.json', '{\n  "mqttUrl": "mqtt://u:secret@broker"\n  "customerId": 1\n}', 0o644);
    const message = configError(() => scratch.load({ flags: { config: file } })).message;
    expect(message).toMatch(new RegExp(`^PANIC_PAIR_CONFIG \\(--config\\) ${file} is not valid JSON: .* at line 3, column 3$`));
    expect(message).not.toContain('secret');
    const prose = scratch.file('prose.json', 'customerId = 42', 0o644);
    expect(configError(() => scratch.load({ flags: { config: prose } })).message).toContain(`${prose} is not valid JSON`);
  });

  it('must hold an object', () => {
    const file = scratch.file('array.json', '[1, 2]', 0o644);
    expect(configError(() => scratch.load({ flags: { config: file } })).message).toMatch(/must hold a JSON object .*; got an array$/);
  });

  it('is refused when group or others may write it, with the fix', () => {
    for (const mode of [0o664, 0o646, 0o666]) {
      const file = scratch.config({ customerId: 1 }, `loose-${mode.toString(8)}.json`, mode);
      expect(configError(() => scratch.load({ flags: { config: file } })).message).toBe(
        `PANIC_PAIR_CONFIG (--config) ${file} is writable by group or others (mode 0${mode.toString(8)}): chmod 644 ${file} (or tighter)`,
      );
    }
  });

  it('is accepted at 0644, 0640 and 0600', () => {
    for (const mode of [0o644, 0o640, 0o600]) {
      const file = scratch.config({ customerId: 1 }, `tight-${mode.toString(8)}.json`, mode);
      expect(scratch.load({ flags: { config: file } }).customerId).toBe(1);
    }
  });

  it('counts null and empty strings in the file as unset', () => {
    const file = scratch.config({ customerId: null, mqttUrl: '', logLevel: 'debug' }, 'blanks.json');
    expect(scratch.load({ flags: { config: file } })).toMatchObject({ customerId: undefined, mqtt: undefined, logLevel: 'debug' });
  });

  it('is refused when it is a directory', () => {
    expect(configError(() => scratch.load({ flags: { config: scratch.dir } })).message).toContain('is not a regular file');
  });
});
