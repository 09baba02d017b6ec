// A store that cannot be read is never overwritten: open refuses, names the file and the fault,
// and leaves every byte where it was.
import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PairingStore } from '../../src/store/index.js';
import { runBundled, unprivileged } from '../support/unprivileged.js';
import { linkingRecord, makeStateDir } from './fixtures/sample-records.js';

const OPEN_STORE = fileURLToPath(new URL('./fixtures/open-store.ts', import.meta.url));

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

const validDevice = linkingRecord('dev-1');
const cases: Array<{ name: string; bytes: Buffer; fault: RegExp }> = [
  { name: 'not JSON', bytes: Buffer.from('{"schemaVersion": 1, "devices": [}'), fault: /is not valid JSON at position 33 \(line 1, column 34\)/ },
  {
    name: 'cut short',
    bytes: Buffer.from('{\n  "schemaVersion": 1,\n  "dev'),
    fault: /is not valid JSON at position 30 \(line 3, column 7; it ends early\)/,
  },
  { name: 'empty', bytes: Buffer.alloc(0), fault: /is empty/ },
  { name: 'not UTF-8', bytes: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), fault: /is not valid UTF-8/ },
  {
    name: 'wrong schema',
    bytes: Buffer.from(JSON.stringify({ schemaVersion: 1, devices: [{ ...validDevice, state: 'paired' }] })),
    fault: /does not match the store schema \(devices\.0\.state: /,
  },
  {
    // Unknown keys are kept (reads-forward.test.ts); the known ones beside them are checked as ever.
    name: 'a known key of the wrong type beside unknown ones',
    bytes: Buffer.from(JSON.stringify({ schemaVersion: 3, minorVersion: 9, devices: [{ ...validDevice, customerId: 'seven', colour: 'red' }] })),
    fault: /does not match the store schema \(devices\.0\.customerId: /,
  },
  {
    name: 'a minorVersion that is not a count',
    bytes: Buffer.from(JSON.stringify({ schemaVersion: 3, minorVersion: 'one', devices: [] })),
    fault: /does not match the store schema \(minorVersion: /,
  },
  {
    name: 'a device twice',
    bytes: Buffer.from(JSON.stringify({ schemaVersion: 1, devices: [validDevice, validDevice] })),
    fault: /deviceId dev-1 appears twice/,
  },
  {
    name: 'an unknown schemaVersion',
    bytes: Buffer.from(JSON.stringify({ schemaVersion: 4, minorVersion: 0, devices: [], later: true })),
    fault: /has schemaVersion 4, which this panic-pair does not read \(it reads 1, 2 and 3\)/,
  },
  { name: 'no schemaVersion', bytes: Buffer.from('{"devices": []}'), fault: /does not match the store schema \(schemaVersion: / },
  { name: 'a JSON array', bytes: Buffer.from('[]'), fault: /does not match the store schema/ },
];

describe('open on a store file that cannot be used', () => {
  for (const { name, bytes, fault } of cases) {
    it(`refuses a file that is ${name}, naming it, and leaves its bytes unchanged`, async () => {
      await writeFile(file, bytes);
      const error = await PairingStore.open(dir).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'store' });
      const message = (error as Error).message;
      expect(message).toContain(file);
      expect(message).toMatch(fault);
      expect(message).toMatch(/it was left as it is\. Move it aside to start with an empty store, or restore a backup/);
      expect(await readFile(file)).toEqual(bytes);
      // The refused open released its lock and wrote nothing else.
      expect((await readdir(dir)).sort()).toEqual(['pairings.json']);
    });
  }

  it('refuses a directory where the file should be', async () => {
    await mkdir(file);
    await writeFile(path.join(file, 'inside'), 'keep me');
    await expect(PairingStore.open(dir)).rejects.toMatchObject({
      kind: 'store',
      message: expect.stringContaining(`${file} is a directory, where the store file should be`),
    });
    expect((await stat(file)).isDirectory()).toBe(true);
    expect(await readFile(path.join(file, 'inside'), 'utf8')).toBe('keep me');
  });

  it('refuses a FIFO instead of blocking on it', async () => {
    execFileSync('mkfifo', [file]);
    await expect(PairingStore.open(dir)).rejects.toMatchObject({
      kind: 'store',
      message: expect.stringContaining(`${file} is not a regular file`),
    });
    expect((await stat(file)).isFIFO()).toBe(true);
  });

  it('refuses a file it may not read (opened by a user without root\'s privileges: root reads anything)', async () => {
    const bytes = '{"schemaVersion": 1, "devices": []}';
    await writeFile(file, bytes);
    await chmod(file, 0o000);
    const as = unprivileged();
    // The state dir is the opener's own, as the unit's is the daemon's; the file in it is not.
    if (as !== undefined) await chown(dir, as.uid, as.gid);
    const result = await runBundled(OPEN_STORE, [dir], as);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      kind: 'store',
      message: expect.stringContaining(`${file} cannot be read: permission denied (EACCES)`),
    });
    expect(await readFile(file, 'utf8')).toBe(bytes);
  });

  it('opens the store again once the installer has moved the bad file aside', async () => {
    await writeFile(file, 'garbage');
    await expect(PairingStore.open(dir)).rejects.toMatchObject({ kind: 'store' });
    const store = await PairingStore.open(path.join(dir, 'elsewhere'));
    await store.put(linkingRecord('fresh'));
    await store.close();
    expect(await readFile(file, 'utf8')).toBe('garbage');
  });
});
