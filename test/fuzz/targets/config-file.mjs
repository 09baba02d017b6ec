// The JSON configuration file, through the whole loader: every input is written as
// the file and loaded; it gives a configuration or a 'config' error, never anything else, and the
// error never echoes a secret the file held.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../dist/config/load.js';
import { PanicPairError } from '../../../dist/errors.js';
import { expect, json, tally } from './verdict.mjs';

const dir = mkdtempSync(join(tmpdir(), 'panic-pair-fuzz-config-'));
const file = join(dir, 'config.json');
const token = join(dir, 'api-token');
writeFileSync(token, 'fuzz-token-3f9a\n', { mode: 0o600 });
const env = { PANIC_PAIR_CONFIG: file, PANIC_PAIR_STATE_DIR: dir };
export const outcomes = tally();

export function fuzz(data) {
  writeFileSync(file, data, { mode: 0o644 });
  try {
    const config = loadConfig({ env, defaultConfigFile: join(dir, 'none.json') });
    expect(typeof config === 'object' && config.stateDir !== undefined, 'a configuration');
    outcomes.accepted();
  } catch (error) {
    if (!(error instanceof PanicPairError) || error.kind !== 'config') throw error;
    // The user-info of an address setting (user:password@host) is never echoed, unless the same
    // text is also the value of another setting, which is echoed as written.
    // (Followed by its @, as it was written: the host after it may repeat the same text.)
    for (const secret of userInfos(data)) expect(!error.message.includes(`${secret}@`), `no password in the message: ${error.message}`);
    expect(!error.message.includes('fuzz-token-3f9a'), 'no token in the message');
    outcomes.rejected();
  }
}

const ADDRESS_KEYS = ['apiUrl', 'mqttUrl'];

/** What a message must not show of the file's addresses: each one's part before its last `@`. */
function userInfos(data) {
  let values;
  try {
    values = JSON.parse(data.toString('utf8'));
  } catch {
    return [];
  }
  if (typeof values !== 'object' || values === null) return [];
  const others = Object.entries(values).filter(([key]) => !ADDRESS_KEYS.includes(key)).map(([key, value]) => `${key}${JSON.stringify(value)}`).join('');
  return ADDRESS_KEYS.map((key) => values[key])
    .filter((value) => typeof value === 'string' && value.includes('@'))
    .map((value) => {
      const rest = value.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '');
      return rest.slice(0, rest.lastIndexOf('@'));
    })
    .filter((secret) => secret.length >= 4 && !others.includes(secret));
}

export function seeds() {
  return [
    json({ apiUrl: 'https://api.example.com', customerId: 42, apiTokenFile: 'api-token' }),
    json({ apiUrl: 'http://127.0.0.1:8080', customerId: '42', mqttUrl: 'mqtt://user:s3cret-pass@127.0.0.1:1883', mqttPrefix: 'panic', bleGateways: 'home/+/BTtoMQTT/+' }),
    json({ customerId: 42, profiles: [{ name: 'sos', match: { zigbeeModel: 'SOS-1' }, deviceId: { from: 'ieeeAddress' } }], webListen: '0.0.0.0:8443', entitlementTtl: 60 }),
    json({ customerId: 42, profiles: [{ name: 'fob', match: { companyId: 1424 }, deviceId: { from: 'manufacturerData', offset: 2, length: 4 }, deviceTypeId: 3 }] }),
    json({ apiUrl: 'ftp://x', customerId: -1, unknownKey: true, apiToken: 'fuzz-token-3f9a' }),
    Buffer.from('{"customerId": 42,\n "apiUrl": "https://api.example.com",\n}'),
    Buffer.from('[]'),
    Buffer.from('\uFEFF{}'),
  ];
}
