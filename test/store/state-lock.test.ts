// One process owns a state dir; a lock its owner can no longer hold is taken over and reported.
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PairingStore, StateLock } from '../../src/store/index.js';
import { procProbe } from '../../src/store/process-identity.js';
import { takeoverMarkerFor } from '../../src/store/state-lock.js';
import { makeStateDir } from './fixtures/sample-records.js';
import { startStoreProcess } from './fixtures/store-processes.js';

let dir: string;
let lockFile: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await makeStateDir());
  lockFile = path.join(dir, 'panic-pair.lock');
});
afterEach(async () => {
  await cleanup();
});

const probe = procProbe();

async function writeLock(owner: { pid: number; bootId: string | null; startTime: number | null }): Promise<void> {
  await writeFile(lockFile, JSON.stringify(owner));
}

async function lockOwnerPid(): Promise<number> {
  return (JSON.parse(await readFile(lockFile, 'utf8')) as { pid: number }).pid;
}

/** The pid of a process that has run and exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('the state dir lock', () => {
  it('refuses a second open while another process holds the store, and allows it once that one stops', async () => {
    const holder = startStoreProcess('holder.mjs', [dir]);
    await holder.waitForLine((line) => line.startsWith('ready'), 'the holder opened the store');
    await expect(PairingStore.open(dir)).rejects.toMatchObject({
      kind: 'locked',
      message: `another panic-pair (pid ${holder.child.pid}) owns ${dir}; stop it first (systemctl stop panic-pair)`,
    });
    holder.child.stdin.end();
    expect(await holder.ended).toEqual({ code: 0, signal: null });

    const store = await PairingStore.open(dir);
    expect(store.lockTakeover).toBeUndefined();
    await store.close();
  }, 20_000);

  it('refuses a second open in the same process', async () => {
    const store = await PairingStore.open(dir);
    await expect(PairingStore.open(dir)).rejects.toMatchObject({ kind: 'locked' });
    await store.close();
  });

  it('writes pid, boot id and start time, and release removes it', async () => {
    const lock = await StateLock.acquire(dir);
    const content = JSON.parse(await readFile(lockFile, 'utf8'));
    expect(content).toMatchObject({
      pid: process.pid,
      bootId: (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim(),
      startTime: await probe.startTime(process.pid),
    });
    expect(content.startTime).toEqual(expect.any(Number));
    await lock.release();
    await expect(readFile(lockFile)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes over a lock whose pid no longer runs, and reports it', async () => {
    const pid = await deadPid();
    await writeLock({ pid, bootId: await probe.bootId(), startTime: 12345 });
    const store = await PairingStore.open(dir);
    expect(store.lockTakeover).toEqual({ previousPid: pid, reason: `pid ${pid} no longer runs` });
    expect(await lockOwnerPid()).toBe(process.pid);
    await store.close();
  });

  it('takes over a lock from before a reboot, even when its pid now runs', async () => {
    await writeLock({ pid: process.pid, bootId: '00000000-0000-0000-0000-000000000000', startTime: null });
    const lock = await StateLock.acquire(dir);
    expect(lock.takeover).toEqual({
      previousPid: process.pid,
      reason: 'it was taken before the hub last started (the boot id changed)',
    });
    await lock.release();
  });

  it('takes over a lock whose pid was reused by another process (start time differs)', async () => {
    const startTime = (await probe.startTime(process.pid))!;
    await writeLock({ pid: process.pid, bootId: await probe.bootId(), startTime: startTime + 1 });
    const lock = await StateLock.acquire(dir);
    expect(lock.takeover?.reason).toBe(`pid ${process.pid} now belongs to another process (its start time differs)`);
    await lock.release();
  });

  it('takes over a lock file left empty or garbled by a power failure', async () => {
    await writeFile(lockFile, '');
    const lock = await StateLock.acquire(dir);
    expect(lock.takeover).toMatchObject({ previousPid: null });
    await lock.release();
  });

  it('works without /proc: the pid alone decides', async () => {
    const noProc = procProbe(path.join(dir, 'no-proc'));
    expect(await noProc.bootId()).toBeNull();
    const pid = await deadPid();
    await writeLock({ pid, bootId: null, startTime: null });
    const lock = await StateLock.acquire(dir, { probe: noProc });
    expect(lock.takeover?.previousPid).toBe(pid);
    await expect(StateLock.acquire(dir, { probe: noProc })).rejects.toMatchObject({ kind: 'locked' });
    await lock.release();
  });

  it('takes over even when an earlier starter died half-way through taking it over', async () => {
    const pid = await deadPid();
    await writeLock({ pid, bootId: await probe.bootId(), startTime: 1 });
    const marker = (await takeoverMarkerFor(lockFile, 0))!;
    await writeFile(marker, JSON.stringify({ pid: await deadPid(), bootId: await probe.bootId(), startTime: 1 }));
    const lock = await StateLock.acquire(dir);
    expect(lock.takeover?.previousPid).toBe(pid);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('waits for a live starter that is taking the lock over, and does not take it too', async () => {
    await writeLock({ pid: await deadPid(), bootId: await probe.bootId(), startTime: 1 });
    const marker = (await takeoverMarkerFor(lockFile, 0))!;
    // This process plays the live starter holding the marker; the lock it would write never comes.
    await writeFile(marker, JSON.stringify({ pid: process.pid, bootId: await probe.bootId(), startTime: await probe.startTime(process.pid) }));
    await expect(StateLock.acquire(dir)).rejects.toMatchObject({ kind: 'locked', message: expect.stringMatching(/other starters keep it busy/) });
  }, 20_000);

  it('release leaves a lock that is no longer its own', async () => {
    const lock = await StateLock.acquire(dir);
    await writeLock({ pid: 1, bootId: await probe.bootId(), startTime: 1 });
    await lock.release();
    expect(await lockOwnerPid()).toBe(1);
  });

  it('lets exactly one of several racing starters take over a stale lock', async () => {
    for (let round = 0; round < 5; round += 1) {
      await writeLock({ pid: await deadPid(), bootId: await probe.bootId(), startTime: 1 });
      const starters = Array.from({ length: 6 }, () => startStoreProcess('lock-contender.mjs', [dir]));
      await Promise.all(starters.map((s) => s.waitForLine((line) => line === 'loaded', 'it loaded')));
      for (const starter of starters) starter.child.stdin.write('go\n');
      const outcomes = await Promise.all(
        starters.map((s) => s.waitForLine((line) => line.startsWith('acquired') || line.startsWith('locked'), 'an outcome')),
      );
      const winners = starters.filter((_, i) => outcomes[i]!.startsWith('acquired'));
      expect(winners, outcomes.join('\n')).toHaveLength(1);
      expect(outcomes.filter((o) => o.startsWith('locked ')).every((o) => o.includes(`(pid ${winners[0]!.child.pid})`))).toBe(true);
      expect(await lockOwnerPid()).toBe(winners[0]!.child.pid);
      for (const starter of starters) starter.child.stdin.end();
      await Promise.all(starters.map((s) => s.ended));
      // The winner's release took its lock and the takeover markers with it.
      expect(await readdir(dir)).toEqual([]);
    }
  }, 60_000);
});
