// The provisioning CSV (`panic-pair provision --csv`): parsed and planned; a batch is
// a list of hubs, or a usage error naming its row or flag. Nothing is written here.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBatchCsv, planBatch } from '../../../dist/provision/batch.js';
import { ProvisionInputError } from '../../../dist/provision/errors.js';
import { expect, tally } from './verdict.mjs';

const dir = mkdtempSync(join(tmpdir(), 'panic-pair-fuzz-csv-'));
writeFileSync(join(dir, 'token'), 'fuzz-token-3f9a\n', { mode: 0o600 });
writeFileSync(join(dir, 'code'), 'installer-code-77\n', { mode: 0o600 });
const csv = join(dir, 'hubs.csv');
const defaults = { apiUrl: 'https://api.example.com', tokenFile: join(dir, 'token'), webCodeFile: undefined, webListen: '0.0.0.0:8080', mqttUrl: undefined, debOnBoot: undefined };
export const outcomes = tally();

export function fuzz(data) {
  const text = data.toString('utf8');
  try {
    const rows = parseBatchCsv(text, csv);
    const hubs = planBatch(rows, csv, defaults);
    expect(hubs.length === rows.length && hubs.length > 0, 'one hub a row');
    expect(new Set(hubs.map((hub) => hub.hubId.toLowerCase())).size === hubs.length, 'hub ids differ');
    for (const hub of hubs) expect(Number.isSafeInteger(hub.customerId) && hub.customerId > 0, 'a customer id');
    outcomes.accepted();
  } catch (error) {
    if (!(error instanceof ProvisionInputError)) throw error;
    expect(!error.message.includes('fuzz-token-3f9a') && !error.message.includes('installer-code-77'), 'no secret in the message');
    outcomes.rejected();
  }
}

export function seeds() {
  return [
    'hubId,customerId\nhub-1,42\nhub-2,43\n',
    '\uFEFF# vendor batch\nhubId,customerId,tokenFile,webCodeFile\n"hub-1",42,token,code\r\nhub-2,"43",,\n',
    'customerId,hubId\n42,HUB-1\n43,hub-1\n',
    'hubId,customerId\nhub-1,4"2\n',
    'hubId,customerId,tokenFile\nhub-1,42,../../etc/shadow\n',
    'hubId\nhub-1\n',
    '',
  ].map((text) => Buffer.from(text));
}
