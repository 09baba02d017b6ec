import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PairingStore } from '../../src/store/index.js';
import { linkedRecord, makeStateDir } from './fixtures/sample-records.js';

// Schema version 2 (supervision): the last-heard times ride the store's own atomic
// writes, and a version 1 file, as the previous release wrote it, is read and kept whole.

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeStateDir());
});
afterEach(async () => {
  await cleanup();
});

const HEARD = {
  savedAt: '2026-11-26T09:30:00.000Z',
  devices: { 'a-1': { lastHeard: '2026-11-26T09:14:00.000Z', battery: 15, deadlineSeconds: 64, sources: ['ble'], profile: 'panic-button' } },
};

describe('the heard section', () => {
  it('reads a version 1 file as the previous release wrote it, keeps every pairing, and writes the current version on the next change', async () => {
    const v1 = `{\n  "schemaVersion": 1,\n  "devices": [\n    ${JSON.stringify(linkedRecord('a-1', 901))},\n    ${JSON.stringify(linkedRecord('b-2', 902))}\n  ]\n}\n`;
    await writeFile(path.join(dir, 'pairings.json'), v1, { mode: 0o600 });
    const store = await PairingStore.open(dir);
    expect(store.all().map((r) => [r.deviceId, r.linkId])).toEqual([['a-1', 901], ['b-2', 902]]);
    expect(store.heard()).toBeUndefined();
    await store.saveHeard(HEARD);
    await store.close();

    const written = JSON.parse(await readFile(path.join(dir, 'pairings.json'), 'utf8'));
    expect(written.schemaVersion).toBe(3);
    expect(written.devices.map((d: { deviceId: string }) => d.deviceId)).toEqual(['a-1', 'b-2']);
    expect(written.heard).toEqual(HEARD);

    const reopened = await PairingStore.open(dir);
    expect(reopened.heard()).toEqual(HEARD);
    expect(reopened.all()).toHaveLength(2);
    await reopened.close();
  });

  it('a save that changes nothing writes nothing; a pairing written later keeps the heard times', async () => {
    const store = await PairingStore.open(dir);
    await store.put(linkedRecord('a-1', 901));
    await store.saveHeard(HEARD);
    const writes = store.stats().writes;
    await store.saveHeard(structuredClone(HEARD));
    expect(store.stats().writes).toBe(writes);
    await store.put(linkedRecord('c-3', 903));
    await store.close();
    const reopened = await PairingStore.open(dir);
    expect(reopened.heard()).toEqual(HEARD);
    await reopened.close();
  });

  it('refuses heard times that break the schema, and leaves the file as it was', async () => {
    const store = await PairingStore.open(dir);
    await store.put(linkedRecord('a-1', 901));
    const before = await readFile(path.join(dir, 'pairings.json'));
    await expect(store.saveHeard({ savedAt: 'yesterday', devices: {} })).rejects.toMatchObject({ kind: 'store' });
    await expect(store.saveHeard({ ...HEARD, devices: { 'a/1': { lastHeard: HEARD.savedAt } } })).rejects.toMatchObject({ kind: 'store' });
    expect(await readFile(path.join(dir, 'pairings.json'))).toEqual(before);
    await store.close();
  });

  it('a version 1 file that holds heard times is refused, not thinned', async () => {
    await writeFile(path.join(dir, 'pairings.json'), JSON.stringify({ schemaVersion: 1, devices: [], heard: HEARD }), { mode: 0o600 });
    await expect(PairingStore.open(dir)).rejects.toThrow(/heard needs schemaVersion 2/);
  });
});
