import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PairingStore, pairingsFileSchema } from '../../src/store/index.js';
import { REAL_IO_TIMEOUT_MS } from '../support/loaded-machine.js';
import { linkedRecord, linkingRecord, makeStateDir } from './fixtures/sample-records.js';

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await makeStateDir());
});
afterEach(async () => {
  await cleanup();
});

async function fileDevices(): Promise<string[]> {
  const parsed = pairingsFileSchema.parse(JSON.parse(await readFile(path.join(dir, 'pairings.json'), 'utf8')));
  return parsed.devices.map((device) => device.deviceId);
}

describe('PairingStore', () => {
  it('starts empty when the file is missing, and creates the state dir with mode 0700', async () => {
    const stateDir = path.join(dir, 'state');
    const store = await PairingStore.open(stateDir);
    expect(store.size).toBe(0);
    expect(store.all()).toEqual([]);
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    await store.close();
  });

  it('round-trips records, writes them sorted by deviceId with the schema version, mode 0600', async () => {
    const store = await PairingStore.open(dir);
    await store.put(linkingRecord('c-3'));
    await store.put(linkedRecord('a-1', 901));
    await store.put({ ...linkingRecord('b-2'), deviceTypeId: 7, state: 'failed', error: 'API timed out' });
    await store.close();

    const raw = await readFile(path.join(dir, 'pairings.json'), 'utf8');
    const parsed = JSON.parse(raw);
    expect(parsed.schemaVersion).toBe(3);
    expect(await fileDevices()).toEqual(['a-1', 'b-2', 'c-3']);
    expect((await stat(path.join(dir, 'pairings.json'))).mode & 0o777).toBe(0o600);

    const reopened = await PairingStore.open(dir);
    expect(reopened.get('a-1')).toEqual(linkedRecord('a-1', 901));
    expect(reopened.get('b-2')).toEqual({ ...linkingRecord('b-2'), deviceTypeId: 7, state: 'failed', error: 'API timed out' });
    expect(reopened.all().map((r) => r.deviceId)).toEqual(['a-1', 'b-2', 'c-3']);
    await reopened.close();
    // The same store encodes to the same bytes: the file is stable.
    expect(await readFile(path.join(dir, 'pairings.json'), 'utf8')).toBe(raw);
  });

  it('replaces a record on put, and remove reports whether the device was there', async () => {
    const store = await PairingStore.open(dir);
    await store.put(linkingRecord('dev-1'));
    await store.put(linkedRecord('dev-1', 5));
    expect(store.get('dev-1')?.state).toBe('linked');
    expect(store.size).toBe(1);
    expect(await store.remove('dev-1')).toBe(true);
    expect(await store.remove('dev-1')).toBe(false);
    expect(store.get('dev-1')).toBeUndefined();
    await store.close();
    expect(await fileDevices()).toEqual([]);
  });

  it('groups a burst of 300 concurrent puts into a handful of writes', async () => {
    const store = await PairingStore.open(dir);
    const ids = Array.from({ length: 300 }, (_, i) => `button-${String(i).padStart(3, '0')}`);
    await Promise.all([...ids].reverse().map((id) => store.put(linkingRecord(id))));
    const stats = store.stats();
    expect(stats.writes).toBeGreaterThanOrEqual(1);
    expect(stats.writes).toBeLessThan(20);
    expect(stats.fsyncs).toBe(stats.writes * 2);
    expect(store.size).toBe(300);
    await store.close();

    const reopened = await PairingStore.open(dir);
    expect(reopened.all().map((r) => r.deviceId)).toEqual(ids);
    await reopened.close();
  });

  it('groups puts and removes that arrive while a write is under way', async () => {
    const store = await PairingStore.open(dir);
    await Promise.all(['a', 'b', 'c', 'd'].map((id) => store.put(linkingRecord(id))));
    const before = store.stats().writes;
    const removals = Promise.all([store.remove('a'), store.remove('zz')]);
    const puts = Promise.all(['e', 'f'].map((id) => store.put(linkingRecord(id))));
    expect(await removals).toEqual([true, false]);
    await puts;
    expect(store.stats().writes - before).toBeLessThanOrEqual(2);
    expect(store.all().map((r) => r.deviceId)).toEqual(['b', 'c', 'd', 'e', 'f']);
    await store.close();
    expect(await fileDevices()).toEqual(['b', 'c', 'd', 'e', 'f']);
  });

  it('flush waits for queued changes; close flushes, releases the lock and refuses later changes', async () => {
    const store = await PairingStore.open(dir);
    const pending = store.put(linkingRecord('late'));
    await store.flush();
    expect(store.get('late')).toBeDefined();
    await pending;
    const beforeClose = store.put(linkingRecord('at-close'));
    await store.close();
    await beforeClose;
    expect(await fileDevices()).toEqual(['at-close', 'late']);
    expect(await readdir(dir)).not.toContain('panic-pair.lock');
    await expect(store.put(linkingRecord('after'))).rejects.toMatchObject({ kind: 'store' });
  });

  it('refuses a record that breaks the schema, so the file can always be read back', async () => {
    const store = await PairingStore.open(dir);
    await expect(store.put({ ...linkingRecord('bad id with spaces') })).rejects.toMatchObject({
      kind: 'store',
      message: expect.stringMatching(/refusing to store device bad id with spaces: deviceId: a deviceId is 1 to 64/),
    });
    await expect(store.put({ ...linkingRecord('ok'), state: 'linked' })).rejects.toThrow(/linkId and linkedAt/);
    expect(store.stats().writes).toBe(0);
    await store.close();
  });

  it('hands out frozen records, so a caller cannot change what is believed to be on disk', async () => {
    const store = await PairingStore.open(dir);
    const input = linkingRecord('frozen');
    await store.put(input);
    input.state = 'failed';
    const record = store.get('frozen')!;
    expect(record.state).toBe('linking');
    expect(Object.isFrozen(record)).toBe(true);
    await store.close();
  });

  it('opens read-only without the lock, beside the owner, and refuses changes', async () => {
    const owner = await PairingStore.open(dir);
    await owner.put(linkingRecord('seen'));
    const reader = await PairingStore.open(dir, { lock: false });
    expect(reader.all().map((r) => r.deviceId)).toEqual(['seen']);
    await expect(reader.put(linkingRecord('other'))).rejects.toMatchObject({ kind: 'store', message: expect.stringMatching(/read-only/) });
    await expect(reader.remove('seen')).rejects.toMatchObject({ kind: 'store' });
    await reader.close();
    await owner.close();
  });

  it('a write prepared ahead is taken by the next change, and closing gives an unused one up', async () => {
    const temporaries = async (): Promise<string[]> => (await readdir(dir)).filter((name) => name.endsWith('.tmp'));
    const store = await PairingStore.open(dir);
    store.prepareWrite();
    store.prepareWrite();
    await expect.poll(temporaries, { timeout: REAL_IO_TIMEOUT_MS }).toHaveLength(1);
    await store.put(linkedRecord('answered', 7));
    expect(await temporaries()).toEqual([]);
    expect(await fileDevices()).toEqual(['answered']);
    expect(store.stats()).toMatchObject({ writes: 1, fsyncs: 2 });

    store.prepareWrite();
    await expect.poll(temporaries, { timeout: REAL_IO_TIMEOUT_MS }).toHaveLength(1);
    await store.close();
    expect(await temporaries()).toEqual([]);
    expect(await fileDevices()).toEqual(['answered']);
  });

  it('removes temporary files a killed writer left behind, once it holds the lock', async () => {
    await writeFile(path.join(dir, 'pairings.json.999.1.tmp'), '{"half');
    const store = await PairingStore.open(dir);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    await store.close();
  });
});
