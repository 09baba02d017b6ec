// A real full disk and a real read-only file system, on a small tmpfs of the test's own. Mounting
// needs privileges; where the sandbox refuses, these tests are skipped and say so.
import { execFileSync } from 'node:child_process';
import { open, readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PairingStore, pairingsFileSchema } from '../../src/store/index.js';
import { linkingRecord, makeStateDir } from './fixtures/sample-records.js';

let mountPoint: string;
let cleanup: () => Promise<void>;
let mounted = false;
let refusal = '';

function mount(...options: string[]): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', options.join(','), 'tmpfs', mountPoint], { stdio: 'pipe' });
}

beforeAll(async () => {
  ({ dir: mountPoint, cleanup } = await makeStateDir());
  try {
    mount('size=256k', 'mode=0700');
    mounted = true;
  } catch (error) {
    refusal = (error as Error).message.split('\n')[0] ?? 'mount failed';
  }
});

afterAll(async () => {
  if (mounted) execFileSync('umount', [mountPoint]);
  await cleanup();
});

/** Fills the file system, then frees `free` bytes of it. */
async function fillDisk(filler: string, free: number): Promise<void> {
  const handle = await open(filler, 'w');
  const block = Buffer.alloc(4096, 0x61);
  try {
    for (;;) await handle.write(block);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    await handle.close();
  }
  await truncate(filler, Math.max(0, (await stat(filler)).size - free));
}

async function devicesOnDisk(file: string): Promise<string[]> {
  return pairingsFileSchema.parse(JSON.parse(await readFile(file, 'utf8'))).devices.map((d) => d.deviceId);
}

describe('on real failing storage (a small tmpfs)', () => {
  it('a full disk, with room for part of the new file: the put rejects, the old file stays whole', async (ctx) => {
    if (!mounted) ctx.skip(`cannot mount a tmpfs here (${refusal}); a real ENOSPC is not tested`);
    const stateDir = path.join(mountPoint, 'full');
    const store = await PairingStore.open(stateDir);
    const ids = Array.from({ length: 200 }, (_, i) => `btn-${i}`);
    await Promise.all(ids.map((id) => store.put(linkingRecord(id))));
    const file = path.join(stateDir, 'pairings.json');
    const goodBytes = await readFile(file);
    expect(goodBytes.length).toBeGreaterThan(3 * 4096);
    const filler = path.join(mountPoint, 'filler');
    // Two pages free: the new file's first writes succeed, the rest find the disk full.
    await fillDisk(filler, 2 * 4096);

    await expect(store.put(linkingRecord('one-more'))).rejects.toMatchObject({
      kind: 'store',
      message: expect.stringContaining(`cannot write ${file}: disk full (ENOSPC) while writing the temporary file`),
    });
    expect(await readFile(file)).toEqual(goodBytes);
    expect((await readdir(stateDir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(store.health().ok).toBe(false);
    expect(store.get('one-more')).toBeUndefined();

    await rm(filler);
    await store.put(linkingRecord('one-more'));
    expect(store.health()).toEqual({ ok: true });
    await store.close();
    expect(await devicesOnDisk(file)).toContain('one-more');
  });

  it('a read-only file system: the put rejects naming it, and works again once it is writable', async (ctx) => {
    if (!mounted) ctx.skip(`cannot mount a tmpfs here (${refusal}); a real EROFS is not tested`);
    const stateDir = path.join(mountPoint, 'readonly');
    const store = await PairingStore.open(stateDir);
    await store.put(linkingRecord('before'));
    const file = path.join(stateDir, 'pairings.json');
    const goodBytes = await readFile(file);
    mount('remount', 'ro');
    try {
      await expect(store.put(linkingRecord('during'))).rejects.toMatchObject({
        kind: 'store',
        message: expect.stringContaining(`cannot write ${file}: read-only file system (EROFS)`),
      });
      expect(store.all().map((r) => r.deviceId)).toEqual(['before']);
    } finally {
      mount('remount', 'rw');
    }
    expect(await readFile(file)).toEqual(goodBytes);
    await store.put(linkingRecord('during'));
    await store.close();
    expect(await devicesOnDisk(file)).toEqual(['before', 'during']);
  });
});
