// Every setting's value, from the environment or the config file: the loader gives a
// configuration or a 'config' error, and its message never holds a secret value.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { loadConfig } from '../../../dist/config/load.js';
import { SETTINGS, SETTING_KEYS } from '../../../dist/config/settings.js';
import { PanicPairError } from '../../../dist/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'panic-pair-fuzz-settings-'));
const file = join(dir, 'config.json');
const SECRET = 'S3CRET-never-echoed';
const keys = SETTING_KEYS.filter((key) => key !== 'config');

/** A value as an installer might type it, or anything at all. */
const text = fc.oneof(
  fc.string(),
  fc.constantFrom('', ' ', '0', '-1', '1e400', 'NaN', 'true', 'off', 'https://api.example.com', 'http://10.0.0.1', 'mqtt://u:p@127.0.0.1:1883', '0.0.0.0:8080', '[::1]:99999', 'hci0', 'AA:BB:CC:DD:EE:FF', '/nonexistent', 'debug'),
  fc.integer().map(String),
  fc.double().map(String),
);
const jsonValue = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }));

export const arbitraries = [
  fc.array(fc.record({ key: fc.constantFrom(...keys), where: fc.constantFrom('env', 'file'), value: fc.oneof(text, jsonValue) }), { minLength: 1, maxLength: 4 }),
];

export function predicate(entries) {
  const env = { PANIC_PAIR_STATE_DIR: dir, PANIC_PAIR_API_TOKEN: SECRET };
  const values = {};
  for (const { key, where, value } of entries) {
    const setting = SETTINGS[key];
    if (where === 'env' || setting.fileKey === null) env[setting.env] = typeof value === 'string' ? value : JSON.stringify(value);
    else values[setting.fileKey] = value;
  }
  writeFileSync(file, JSON.stringify(values), { mode: 0o644 });
  env.PANIC_PAIR_CONFIG = file;
  try {
    loadConfig({ env, defaultConfigFile: join(dir, 'none.json') });
    return true;
  } catch (error) {
    if (!(error instanceof PanicPairError) || error.kind !== 'config') throw error;
    if (error.message.includes(SECRET)) throw new Error(`a secret in the message: ${error.message}`);
    return true;
  }
}
