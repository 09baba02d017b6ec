// The JSON configuration file, through the whole loader (CONTRACT 3): every input is written as
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
    // The unknown keys are named as written (a key is no secret); the password of an address
    // (user:password@host) never is.
    const known = error.message.replace(/has unknown keys? .*; known keys: .*$/s, '');
    expect(!known.includes('fuzz-token-3f9a') && !known.includes('s3cret-pass@'), `no secret in the message: ${error.message}`);
    outcomes.rejected();
  }
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
