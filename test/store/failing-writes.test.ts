// When a write fails, the changes in it fail with a clear error, the last good file stays, what
// the store reports is still what is on disk, and the next good write clears the fault.
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { beginDurableWrite, PairingStore, pairingsFileSchema, writeFileDurably } from '../../src/store/index.js';
import { faultyFs, type Fault, type FaultStep } from './fixtures/faulty-fs.js';
import { REAL_IO_TIMEOUT_MS } from '../support/loaded-machine.js';
import { linkedRecord, linkingRecord, makeStateDir } from './fixtures/sample-records.js';

let dir: string;
let file: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await makeStateDir());
  file = path.join(dir, 'pairings.json');
});
afterEach(async () => {
  await cleanup();
});

async function temporaries(): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith('.tmp'));
}

const faults: Array<{ step: FaultStep; code: string; words: string; while: string }> = [
  { step: 'open-temp', code: 'EROFS', words: 'read-only file system (EROFS)', while: 'creating the temporary file' },
  { step: 'write', code: 'ENOSPC', words: 'disk full (ENOSPC)', while: 'writing the temporary file' },
  { step: 'sync-temp', code: 'EIO', words: 'input/output error (the storage may be failing) (EIO)', while: 'syncing the temporary file' },
  { step: 'rename', code: 'EACCES', words: 'permission denied (EACCES)', while: 'renaming it into place' },
];

describe('a write that fails', () => {
  for (const { step, code, words, while: during } of faults) {
    it(`${code} while ${during}: the batch rejects, the last good file and state stay, the next write heals`, async () => {
      const fault: { current: Fault | null } = { current: null };
      const store = await PairingStore.open(dir, { fs: faultyFs(fault) });
      await store.put(linkedRecord('kept', 1));
      const goodBytes = await readFile(file);

      fault.current = { step, code };
      const batch = [store.put(linkingRecord('lost-1')), store.put(linkedRecord('kept', 2)), store.remove('kept')];
      for (const change of batch) {
        await expect(change).rejects.toMatchObject({
          kind: 'store',
          message: `cannot write ${file}: ${words} while ${during}; the last good copy was kept`,
        });
      }
      expect(await readFile(file)).toEqual(goodBytes);
      expect(pairingsFileSchema.parse(JSON.parse(goodBytes.toString('utf8'))).devices).toHaveLength(1);
      expect(await temporaries()).toEqual([]);
      expect(store.all()).toEqual([linkedRecord('kept', 1)]);
      expect(store.get('lost-1')).toBeUndefined();
      expect(store.health()).toEqual({ ok: false, error: expect.stringContaining(words) });
      expect(store.stats()).toMatchObject({ writes: 1, lastWriteError: expect.stringContaining(words) });

      fault.current = null;
      await store.put(linkingRecord('after'));
      expect(store.health()).toEqual({ ok: true });
      expect(store.stats().writes).toBe(2);
      expect(store.all().map((r) => r.deviceId)).toEqual(['after', 'kept']);
      await store.close();
      const reopened = await PairingStore.open(dir);
      expect(reopened.all().map((r) => r.deviceId)).toEqual(['after', 'kept']);
      await reopened.close();
    });
  }

  it('EIO while syncing the directory: rejects and says the new copy may not survive a power failure', async () => {
    const fault: { current: Fault | null } = { current: { step: 'sync-dir', code: 'EIO' } };
    await expect(writeFileDurably(file, 'new\n', { fs: faultyFs(fault) })).rejects.toMatchObject({
      kind: 'store',
      message: expect.stringMatching(/EIO\) while syncing the directory; the new copy is in place but may not survive a power failure$/),
    });
    expect(await temporaries()).toEqual([]);
  });

  it('on the real file system: a directory put where the file was makes the rename fail, and nothing is lost', async () => {
    const store = await PairingStore.open(dir);
    await store.put(linkingRecord('first'));
    const goodBytes = await readFile(file);
    await rm(file);
    await mkdir(file);
    await writeFile(path.join(file, 'occupant'), 'x');

    await expect(store.put(linkingRecord('second'))).rejects.toMatchObject({
      kind: 'store',
      message: expect.stringContaining(`cannot write ${file}: is a directory (EISDIR) while renaming it into place`),
    });
    expect(store.all().map((r) => r.deviceId)).toEqual(['first']);
    expect(store.health().ok).toBe(false);
    expect(await temporaries()).toEqual([]);

    await rm(file, { recursive: true });
    await writeFile(file, goodBytes);
    await store.put(linkingRecord('second'));
    expect(store.health()).toEqual({ ok: true });
    await store.close();
    expect(pairingsFileSchema.parse(JSON.parse(await readFile(file, 'utf8'))).devices.map((d) => d.deviceId)).toEqual([
      'first',
      'second',
    ]);
  });
});

describe('writeFileDurably', () => {
  it('replaces the file in four steps, two of them fsyncs, with mode 0600 and no temporary left', async () => {
    await writeFile(file, 'old\n', { mode: 0o644 });
    const result = await writeFileDurably(file, 'new ü\n');
    expect(result).toEqual({ bytes: 7, fsyncs: 2 });
    expect(await readFile(file, 'utf8')).toBe('new ü\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await temporaries()).toEqual([]);
  });

  it('begun ahead of its data: the temporary file exists meanwhile, and an abandoned write leaves nothing', async () => {
    await writeFile(file, 'old\n');
    const abandoned = beginDurableWrite(file);
    const finished = beginDurableWrite(file);
    await expect.poll(temporaries, { timeout: REAL_IO_TIMEOUT_MS }).toHaveLength(2);
    await abandoned.abandon();
    expect(await finished.finish('new\n')).toEqual({ bytes: 4, fsyncs: 2 });
    expect(await readFile(file, 'utf8')).toBe('new\n');
    expect(await temporaries()).toEqual([]);
    await expect(finished.abandon()).rejects.toThrow(/once/);
  });

  it('a temporary file that could not be created ahead fails the write at that step, when the data comes', async () => {
    const fault: { current: Fault | null } = { current: { step: 'open-temp', code: 'ENOSPC' } };
    const write = beginDurableWrite(file, { fs: faultyFs(fault) });
    fault.current = null;
    await expect(write.finish('new\n')).rejects.toMatchObject({
      kind: 'store',
      message: `cannot write ${file}: disk full (ENOSPC) while creating the temporary file; the last good copy was kept`,
    });
    expect(await temporaries()).toEqual([]);
  });
});

describe('the store', () => {
  it('removing a device it does not hold writes nothing and leaves no temporary file', async () => {
    const store = await PairingStore.open(dir);
    await store.put(linkingRecord('kept'));
    const before = store.stats().writes;
    expect(await store.remove('never-stored')).toBe(false);
    expect(store.stats().writes).toBe(before);
    expect(await temporaries()).toEqual([]);
    await store.close();
  });
});
