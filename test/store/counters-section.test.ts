import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PairingStore } from '../../src/store/index.js';
import { ButtonKeyStore, BUTTON_KEYS_FILE } from '../../src/store/button-key-store.js';
import { linkedRecord, makeStateDir } from './fixtures/sample-records.js';

// Schema version 3 (trusted buttons): a keyed button's last counted counter rides the heard
// section; a version 2 file is read as one whose buttons have counted nothing yet. The keys live
// in a file of their own, the daemon user's alone.

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeStateDir());
});
afterEach(async () => {
  await cleanup();
});

const V2_HEARD = { savedAt: '2026-11-26T09:30:00.000Z', devices: { 'a-1': { lastHeard: '2026-11-26T09:14:00.000Z', battery: 80 } } };

describe('store version 3', () => {
  it('reads a version 2 file whole, and writes version 3 with the counter on the next save', async () => {
    const v2 = { schemaVersion: 2, devices: [linkedRecord('a-1', 901)], heard: V2_HEARD };
    await writeFile(path.join(dir, 'pairings.json'), JSON.stringify(v2), { mode: 0o600 });
    const store = await PairingStore.open(dir);
    expect(store.all().map((record) => record.deviceId)).toEqual(['a-1']);
    expect(store.heard()).toEqual(V2_HEARD);
    const counted = { ...V2_HEARD, devices: { 'a-1': { ...V2_HEARD.devices['a-1'], counter: 0xffff_fffe } } };
    await store.saveHeard(counted);
    await store.close();
    const written = JSON.parse(await readFile(path.join(dir, 'pairings.json'), 'utf8'));
    expect(written.schemaVersion).toBe(3);
    expect(written.heard.devices['a-1'].counter).toBe(0xffff_fffe);
    const reopened = await PairingStore.open(dir);
    expect(reopened.heard()).toEqual(counted);
    await reopened.close();
  });

  it('a version 2 file that holds a counter is refused, not thinned', async () => {
    const heard = { ...V2_HEARD, devices: { 'a-1': { ...V2_HEARD.devices['a-1'], counter: 5 } } };
    await writeFile(path.join(dir, 'pairings.json'), JSON.stringify({ schemaVersion: 2, devices: [], heard }), { mode: 0o600 });
    await expect(PairingStore.open(dir)).rejects.toThrow(/counter needs schemaVersion 3/);
  });
});

describe('the button keys', () => {
  const KEY = Buffer.from('231d39c1d7cc1ab1aee224cd096db932', 'hex');

  it('are kept durably in a file only the daemon user may read, and removed by forget', async () => {
    const keys = await ButtonKeyStore.open(dir);
    expect(keys.get('K1')).toBeUndefined();
    await keys.set('K1', KEY);
    const file = path.join(dir, BUTTON_KEYS_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await ButtonKeyStore.open(dir)).get('K1')).toEqual(KEY);
    await keys.remove('K1');
    expect((await ButtonKeyStore.open(dir)).has('K1')).toBe(false);
    // Forgotten: no trace of it is left in the file.
    expect(await readFile(file, 'utf8')).not.toContain(KEY.toString('hex'));
    expect(await readFile(path.join(dir, 'pairings.json'), 'utf8').catch(() => '')).not.toContain(KEY.toString('hex'));
  });

  it('a keys file others may read is refused, with the chmod and without its content', async () => {
    const keys = await ButtonKeyStore.open(dir);
    await keys.set('K1', KEY);
    const file = path.join(dir, BUTTON_KEYS_FILE);
    await import('node:fs/promises').then((fs) => fs.chmod(file, 0o644));
    const refusal = ButtonKeyStore.open(dir);
    await expect(refusal).rejects.toThrow(`chmod 600 ${file}`);
    await expect(refusal).rejects.not.toThrow(KEY.toString('hex'));
  });
});
