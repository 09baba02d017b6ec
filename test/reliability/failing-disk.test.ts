// The daemon's state dir on storage that fails under it: a real full disk
// (before a link, and while its POST is in flight) and a real read-only remount, on a small tmpfs
// of the test's own. Mounting needs privileges;
// where it is refused these tests are skipped and say so.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/status/status-report.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';

const mountPoint = mkdtempSync(path.join(tmpdir(), 'panic-pair-disk-'));
const stateDir = path.join(mountPoint, 'state');
const storeFile = path.join(stateDir, 'pairings.json');
let mounted = false;
let refusal = '';
let hub: DaemonHarness | undefined;

function mount(...options: string[]): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', options.join(','), 'tmpfs', mountPoint], { stdio: 'pipe' });
}

beforeAll(async () => {
  try {
    mount('size=1m', 'mode=0700');
    mounted = true;
  } catch (error) {
    refusal = (error as Error).message.split('\n')[0] ?? 'mount failed';
    return;
  }
  hub = await startHarness({ logLevel: 'info', env: { PANIC_PAIR_STATE_DIR: stateDir } });
});

afterAll(async () => {
  if (mounted) {
    // Writable again, so that the daemon can release its lock on the way out.
    execFileSync('mount', ['-o', 'remount,rw', mountPoint], { stdio: 'pipe' });
    await hub?.close();
    execFileSync('umount', [mountPoint]);
  }
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Fills the file system to the last byte. */
async function fillDisk(filler: string): Promise<void> {
  const handle = await open(filler, 'w');
  const block = Buffer.alloc(16 * 1024, 0x61);
  try {
    for (;;) await handle.write(block);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  }
  // Then single bytes, until the last partly used page is full too.
  try {
    for (;;) await handle.write(Buffer.of(0x61));
  } catch {
    // full
  } finally {
    await handle.close();
  }
}

async function statusOf(harness: DaemonHarness): Promise<{ code: number | null; report: StatusReport }> {
  const result = await harness.cli(['status', '--json']);
  return { code: result.code, report: JSON.parse(result.stdout) as StatusReport };
}

/** The promise when the store cannot take the linking record: a clear failure, no POST, no damage. */
async function expectRefusedWithoutPost(harness: DaemonHarness, deviceId: string, problem: RegExp): Promise<void> {
  const good = readFileSync(storeFile);
  const linkRequests = harness.simulator.stats().requests.link;
  const pid = (await harness.status()).pid;
  await harness.announceSeen(deviceId);

  const pair = await harness.cli(['pair', deviceId]);
  expect(pair.code, pair.stdout + pair.stderr).toBe(1);
  expect(pair.stderr).toMatch(problem);
  expect(pair.stderr).toContain(storeFile);
  expect(postsFor(harness, deviceId)).toBe(0);
  expect(harness.simulator.stats().requests.link).toBe(linkRequests);

  const { code, report } = await statusOf(harness);
  expect(report.pid).toBe(pid);
  expect(code).toBe(1);
  expect(report.healthy).toBe(false);
  expect(report.store.ok).toBe(false);
  expect(report.store.error).toMatch(problem);
  expect(report.problems.join('\n')).toContain('the pairing store cannot be written');

  expect(readFileSync(storeFile)).toEqual(good);
  expect(readdirSync(stateDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  expect((await harness.devices()).map((device) => device.deviceId)).not.toContain(deviceId);
}

/** Once the storage is fixed, the same button links with one POST and status is healthy again. */
async function expectLinksOnceFixed(harness: DaemonHarness, deviceId: string): Promise<void> {
  // A fresh `pair`: the engine's background retry of store failures (15 s doubling) is not
  // configurable, so its timing is not waited for here; it would join this job, not post again.
  await harness.announceSeen(deviceId);
  const pair = await harness.cli(['pair', deviceId]);
  expect(pair.code, pair.stdout + pair.stderr).toBe(0);
  expect(postsFor(harness, deviceId)).toBe(1);
  expect(readRecord(deviceId)?.state).toBe('linked');
  const { code, report } = await statusOf(harness);
  expect(report.store).toMatchObject({ ok: true });
  expect(code, report.problems.join('; ')).toBe(0);
}

describe('the state dir on a failing disk, through the daemon', () => {
  it('a full disk: pair exits 1 naming it, nothing is posted, status is degraded, the store is intact; linked once there is room', async (context) => {
    if (!mounted || hub === undefined) return context.skip(`cannot mount a tmpfs here (${refusal}); a real ENOSPC is not tested`);
    await hub.announceSeen('DISK-OK');
    expect((await hub.cli(['pair', 'DISK-OK'])).code).toBe(0);

    const filler = path.join(mountPoint, 'filler');
    await fillDisk(filler);
    await expectRefusedWithoutPost(hub, 'DISK-FULL', /disk full \(ENOSPC\)/);

    await rm(filler);
    await expectLinksOnceFixed(hub, 'DISK-FULL');
  });

  it('a read-only remount: pair exits 1 naming it, nothing is posted, status is degraded, the store is intact; linked once writable', async (context) => {
    if (!mounted || hub === undefined) return context.skip(`cannot mount a tmpfs here (${refusal}); a real EROFS is not tested`);
    mount('remount', 'ro');
    try {
      await expectRefusedWithoutPost(hub, 'DISK-RO', /read-only file system \(EROFS\)/);
    } finally {
      mount('remount', 'rw');
    }
    await expectLinksOnceFixed(hub, 'DISK-RO');
  });

  it('the disk fills while a POST is in flight: the link is kept in memory, never posted again, and written once there is room', async (context) => {
    if (!mounted || hub === undefined) return context.skip(`cannot mount a tmpfs here (${refusal}); a real ENOSPC is not tested`);
    const harness = hub;
    const onDisk = (): string | undefined => readRecord('DISK-MID')?.state;
    harness.simulator.setFaults({ latencyMs: 2_000 });
    await harness.announceSeen('DISK-MID');
    const pair = harness.cli(['pair', 'DISK-MID']);
    await waitFor(() => onDisk() === 'linking', { what: 'the linking record on disk' });
    const filler = path.join(mountPoint, 'filler');
    await fillDisk(filler);
    const result = await pair;
    harness.simulator.setFaults({});
    expect(result.code, result.stdout).toBe(1);
    expect(result.stderr).toMatch(/the API linked DISK-MID \(link \d+\) but the store could not record it: .*disk full \(ENOSPC\)/);

    const { code, report } = await statusOf(harness);
    expect(code).toBe(1);
    expect(report.problems.join('\n')).toContain('1 link(s) made by the API are not yet recorded in the store');
    expect((await harness.devices()).find((device) => device.deviceId === 'DISK-MID')?.state).toBe('linked');
    expect(onDisk()).toBe('linking');
    const again = await harness.cli(['pair', 'DISK-MID']);
    expect(again.code, again.stderr).toBe(0);
    expect(postsFor(harness, 'DISK-MID')).toBe(1);

    // Room again; at the latest at shutdown the link is written, and a new start does not post it.
    await rm(filler);
    expect(await harness.stop()).toEqual({ code: 0, signal: null });
    expect(readRecord('DISK-MID')).toMatchObject({ state: 'linked', linkId: expect.any(Number) });
    await harness.restart();
    expect((await harness.devices()).find((device) => device.deviceId === 'DISK-MID')?.state).toBe('linked');
    expect(postsFor(harness, 'DISK-MID')).toBe(1);
  });
});

function readRecord(deviceId: string): { state: string; linkId?: number } | undefined {
  const file = JSON.parse(readFileSync(storeFile, 'utf8')) as { devices: Array<{ deviceId: string; state: string; linkId?: number }> };
  return file.devices.find((device) => device.deviceId === deviceId);
}
