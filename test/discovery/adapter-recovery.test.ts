import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdapterChoice } from '../../src/config/adapter.js';
import { DEFAULT_PROFILE } from '../../src/config/profile.js';
import { createCounters } from '../../src/status/counters.js';
import { sysfsAdapters } from '../../src/discovery/adapter-finder.js';
import type { PowerAnswer } from '../../src/discovery/adapter-power.js';
import { ADAPTER_POLL_MS, REOPEN_UNUSABLE_MS, startAdapterRecovery, type AdapterRecovery } from '../../src/discovery/adapter-recovery.js';
import { SILENT_SCAN_REFRESH_MS } from '../../src/discovery/ble.js';
import { loadNoble } from '../../src/discovery/noble-loader.js';
import { ProfileMatcher } from '../../src/discovery/profiles.js';
import type { Sighting } from '../../src/sighting.js';
import { VirtualHciSocket } from '../../src/discovery/virtual-hci-socket.js';
import { advertisingReportEvent } from '../support/btsnoop-writer.js';
import { captureLog } from '../support/log-capture.js';
import { buttonReports } from './fixtures/captures.js';

// The recovery ladder on a fake clock: real noble over the VirtualHciSocket (one socket a time an
// adapter is opened, as the kernel gives a new one), and a sysfs laid out in a temporary
// directory, so that adapters appear, vanish, come back under another index and are rfkill-blocked
// as the kernel shows them. Each row of the radio's failure table (docs/engineer/radio.md) is
// timed against its bound.

const BUTTON = { id: '7F3A9C', address: 'c4:64:9f:5e:94:54', rssi: -55 };
const ADDRESSES: Record<number, string> = { 0: '02:00:00:00:00:0A', 1: '02:00:00:00:00:0B', 2: '02:00:00:00:00:0C' };
const STEP_MS = 50;

let root: string;
let running: AdapterRecovery | undefined;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'Date'] });
  root = mkdtempSync(path.join(tmpdir(), 'sysfs-'));
  mkdirSync(path.join(root, 'class', 'bluetooth'), { recursive: true });
});
afterEach(() => {
  running?.stop();
  running = undefined;
  vi.useRealTimers();
  rmSync(root, { recursive: true, force: true });
});

/** The kernel's view: adapters listed under class/bluetooth, their rfkill switches under class/rfkill. */
const sysfs = {
  /** `address`: the controller's, shown in sysfs as older kernels do; otherwise ADDRESSES[index], shown only to whoever opens it. */
  plug(index: number, address?: string) {
    const dir = path.join(root, 'class', 'bluetooth', `hci${index}`);
    mkdirSync(dir, { recursive: true });
    if (address !== undefined) writeFileSync(path.join(dir, 'address'), `${address.toLowerCase()}\n`);
  },
  controller: (index: number) => sysfsAdapters(root).adapters()?.find((a) => a.index === index)?.address ?? ADDRESSES[index]!,
  unplug(index: number) {
    rmSync(path.join(root, 'class', 'bluetooth', `hci${index}`), { recursive: true, force: true });
  },
  rfkill(index: number, soft: boolean) {
    const dir = path.join(root, 'class', 'rfkill', `rfkill${index}`);
    mkdirSync(dir, { recursive: true });
    for (const [file, value] of Object.entries({ type: 'bluetooth', name: `hci${index}`, soft: soft ? '1' : '0', hard: '0' })) writeFileSync(path.join(dir, file), `${value}\n`);
  },
  listed: (index: number) => (sysfsAdapters(root).adapters() ?? []).some((a) => a.index === index),
};

function start(choice: AdapterChoice = { index: 0 }, options: { refuse?: boolean; down?: boolean; powerAnswer?: PowerAnswer | (() => PowerAnswer | undefined) } = {}) {
  const sockets: VirtualHciSocket[] = [];
  const opened: number[] = [];
  const powerRequests: number[] = [];
  const sightings: Sighting[] = [];
  const log = captureLog();
  const recovery = startAdapterRecovery({
    choice,
    finder: sysfsAdapters(root),
    openRadio(index) {
      opened.push(index);
      // As the kernel's bind: no such adapter, ENODEV.
      if (!sysfs.listed(index)) throw Object.assign(new Error('No such device'), { code: 'ENODEV' });
      if (options.refuse === true) throw Object.assign(new Error('Operation not permitted'), { code: 'EPERM' });
      const socket = new VirtualHciSocket({ address: sysfs.controller(index), powered: options.down !== true });
      sockets[index] = socket;
      return loadNoble({ hciDevice: index, socket });
    },
    // The kernel's Set Powered: refused while rfkill blocks the adapter.
    async powerOn(index) {
      powerRequests.push(index);
      if (sysfsAdapters(root).rfkill(`hci${index}`) !== undefined) return { ok: false, reason: 'blocked by rfkill', retry: false };
      const answer = typeof options.powerAnswer === 'function' ? options.powerAnswer() : options.powerAnswer;
      if (answer !== undefined) return answer;
      sockets[index]?.setPowered(true);
      return { ok: true };
    },
    source: { matcher: new ProfileMatcher([DEFAULT_PROFILE]), source: 'ble', counters: createCounters(), logger: log.logger, onSighting: (s) => sightings.push(s) },
    logger: log.logger,
    now: () => Date.now(),
  });
  running = recovery;
  const hear = (index: number): boolean[] => buttonReports(BUTTON).map((r) => sockets[index]!.deliver(Buffer.concat([Buffer.of(0x04), advertisingReportEvent(r)])));
  return { recovery, sockets, opened, powerRequests, sightings, log, hear };
}

/** Advances the fake clock until `done`, and says how long that took; fails beyond `boundMs`. */
async function within(boundMs: number, done: () => boolean, what: string): Promise<number> {
  const from = Date.now();
  while (!done()) {
    if (Date.now() - from > boundMs) throw new Error(`not ${what} within ${boundMs} ms`);
    await vi.advanceTimersByTimeAsync(STEP_MS);
  }
  return Date.now() - from;
}

const state = (recovery: AdapterRecovery) => recovery.condition().state;
const scanningOn = (recovery: AdapterRecovery, socket: () => VirtualHciSocket | undefined) => () => state(recovery) === 'scanning' && socket()?.scanning === true;

describe('the recovery ladder (fake clock)', () => {
  it('absent at start: unavailable with the fix, looked for cheaply, scanning within 10 s of appearing', async () => {
    const { recovery, sockets, opened, hear, sightings } = start();
    expect(recovery.condition()).toEqual({ state: 'unavailable', reason: expect.stringMatching(/^no adapter hci0 \(not present\); waiting for it: .*bluetoothctl list.*hciuart/) });
    await vi.advanceTimersByTimeAsync(30_000);
    // Absent in sysfs: no socket is opened to find that out.
    expect(opened).toEqual([]);
    expect(recovery.adapter()).toBeNull();

    sysfs.plug(0);
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning after hci0 appeared');
    expect(recovery.adapter()).toEqual({ name: 'hci0', address: ADDRESSES[0] });
    expect(recovery.restarts).toBe(0);
    expect(recovery.lastHeardSeconds()).toBeNull();
    hear(0);
    expect(sightings.map((s) => s.deviceId)).toEqual(['7F3A9C']);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(recovery.lastHeardSeconds()).toBe(3);
  });

  it('removed and back under a new index, found by its address: unavailable meanwhile, scanning within 10 s', async () => {
    sysfs.plug(0, ADDRESSES[0]);
    const { recovery, sockets, hear, sightings } = start({ address: ADDRESSES[0]! });
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning at start');

    sockets[0]!.vanish();
    sysfs.unplug(0);
    await within(2 * ADAPTER_POLL_MS, () => state(recovery) === 'unavailable', 'unavailable after the removal');
    expect(recovery.condition().reason).toMatch(/^no adapter 02:00:00:00:00:0A \(it went away\)/);
    expect(recovery.adapter()).toBeNull();

    // The kernel gives the same controller another index.
    sysfs.plug(1, ADDRESSES[0]);
    await within(10_000, scanningOn(recovery, () => sockets[1]), 'scanning on hci1');
    expect(recovery.adapter()).toEqual({ name: 'hci1', address: '02:00:00:00:00:0A' });
    expect(recovery.restarts).toBe(1);
    hear(1);
    expect(sightings.map((s) => s.deviceId)).toEqual(['7F3A9C']);
  });

  it('finds an adapter named by address by opening each when sysfs shows no addresses', async () => {
    sysfs.plug(0);
    sysfs.plug(1);
    const { recovery, sockets, opened } = start({ address: ADDRESSES[1]! });
    await within(10_000, scanningOn(recovery, () => sockets[1]), 'scanning on hci1, the configured address');
    expect(opened).toEqual([0, 1]);
    expect(recovery.adapter()).toEqual({ name: 'hci1', address: ADDRESSES[1] });
    // hci0's address was learned: it is not opened again while it stays.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(opened).toEqual([0, 1]);
  });

  it('a socket that fails under noble (EBADFD: the adapter re-registered) is closed and opened again', async () => {
    sysfs.plug(0);
    const { recovery, sockets, opened } = start();
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning at start');
    const first = sockets[0]!;
    first.vanish();
    await vi.advanceTimersByTimeAsync(2_000);
    // Registered again under the same index: the old socket's device ioctl (by index) finds it up,
    // noble writes to the old socket, which the kernel unbound, and the write fails with EBADFD.
    first.setPowered(true);
    await within(10_000, () => sockets[0] !== first && scanningOn(recovery, () => sockets[0])(), 'scanning on a fresh socket');
    expect(opened).toEqual([0, 0]);
    expect(recovery.restarts).toBe(1);
  });

  it('an adapter gone and back between two looks leaves a dead socket, found out by the next scan refresh', async () => {
    sysfs.plug(0);
    const { recovery, sockets, opened } = start();
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning at start');
    const first = sockets[0]!;
    // Faster than noble's and the ladder's one-second looks: nothing reads as changed.
    first.vanish();
    first.setPowered(true);
    await within(SILENT_SCAN_REFRESH_MS + 20_000, () => sockets[0] !== first && scanningOn(recovery, () => sockets[0])(), 'scanning on a fresh socket');
    expect(opened).toEqual([0, 0]);
    expect(recovery.restarts).toBe(1);
  });

  it('powered off: powered-off with the fix; scanning within 5 s of power on', async () => {
    sysfs.plug(0);
    const { recovery, sockets, powerRequests } = start();
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning at start');
    await vi.advanceTimersByTimeAsync(2_000);
    sockets[0]!.setPowered(false);
    await within(2_000, () => state(recovery) === 'powered-off', 'powered-off');
    expect(recovery.condition().reason).toMatch(/^hci0 is powered off: power it on \(bluetoothctl power on, or btmgmt power on\)$/);
    await vi.advanceTimersByTimeAsync(60_000);
    // Powered off by someone while in use: left off (power on was asked only as it was opened).
    expect(state(recovery)).toBe('powered-off');
    expect(powerRequests).toEqual([0]);

    sockets[0]!.setPowered(true);
    await within(5_000, scanningOn(recovery, () => sockets[0]), 'scanning after power on');
    expect(recovery.restarts).toBe(0);
  });

  it('powered on, and off again before noble looks: powered-off (noble took the kernel\'s power-on traffic for poweredOn)', async () => {
    sysfs.plug(0);
    const { recovery, sockets } = start();
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning at start');
    sockets[0]!.setPowered(false);
    await within(2_000, () => state(recovery) === 'powered-off', 'powered-off');
    // Powered on: the kernel's own power-on sequence, which every raw socket sees (Read Local
    // Version among it), gets noble to poweredOn at once, before its one-second poll has looked.
    sockets[0]!.setPowered(true);
    sockets[0]!.write(Buffer.from([0x01, 0x01, 0x10, 0x00]));
    await vi.advanceTimersByTimeAsync(100);
    expect(state(recovery)).toBe('scanning');
    // Off again (an rfkill block, a power off) before that poll.
    sockets[0]!.setPowered(false);
    await within(3_000, () => state(recovery) === 'powered-off', 'powered-off again');
  });

  it('a power-on that failed is not tried again once the adapter is up: powered off afterwards, it stays off', async () => {
    sysfs.plug(0);
    const { recovery, sockets, powerRequests } = start(undefined, { powerAnswer: { ok: false, reason: 'busy', retry: true } });
    // The answer is a failure, but the adapter is up (someone else powered it, or the answer was late).
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning at start');
    sockets[0]!.setPowered(false);
    await within(2_000, () => state(recovery) === 'powered-off', 'powered-off');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state(recovery)).toBe('powered-off');
    expect(powerRequests).toEqual([0]);
  });

  it('rfkill soft block: blocked with `rfkill unblock bluetooth`; scanning within 5 s of the unblock', async () => {
    sysfs.plug(0);
    sysfs.rfkill(0, false);
    const { recovery, sockets } = start();
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning at start');
    // The kernel closes a blocked adapter: noble sees it down.
    sysfs.rfkill(0, true);
    sockets[0]!.setPowered(false);
    await within(3_000, () => state(recovery) === 'blocked', 'blocked');
    expect(recovery.condition()).toEqual({ state: 'blocked', reason: 'hci0 is blocked by rfkill (soft block): rfkill unblock bluetooth' });

    // Nothing but the ladder powers it on again (no bluetoothd here).
    sysfs.rfkill(0, false);
    await within(5_000, scanningOn(recovery, () => sockets[0]), 'scanning after the unblock');
  });

  it('an adapter found down (nobody powered it on; the kernel powers a new one off after setup) is powered on as it is opened', async () => {
    sysfs.plug(0);
    const { recovery, sockets, powerRequests } = start({ index: 0 }, { down: true });
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning after the power on');
    expect(powerRequests).toEqual([0]);
  });

  it('an adapter that stays in its setup (invalid index) for 30 s is asked until it is ready, then scans within 10 s', async () => {
    sysfs.plug(0);
    const setupEndsAt = Date.now() + 30_000;
    const notReady = (): PowerAnswer | undefined => (Date.now() < setupEndsAt ? { ok: false, reason: 'invalid index', retry: true } : undefined);
    const { recovery, sockets, powerRequests, log } = start({ index: 0 }, { down: true, powerAnswer: notReady });
    await vi.advanceTimersByTimeAsync(29_000);
    expect(state(recovery)).toBe('powered-off');
    const askedDuringSetup = powerRequests.length;
    // Asked again and again, with a bounded backoff: not once a poll, not given up.
    expect(askedDuringSetup).toBeGreaterThan(10);
    expect(askedDuringSetup).toBeLessThan(40);
    await vi.advanceTimersByTimeAsync(1_000);
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning after the setup ended');
    const notReadyLines = log.lines.filter((line) => /not ready to be powered on yet/.test(String(line.msg)));
    expect(notReadyLines).toHaveLength(1);
    expect(notReadyLines[0]!.level).toBe(30);
    expect(log.lines.some((line) => /refused to power/.test(String(line.msg)))).toBe(false);
    // Up: nothing more is asked.
    const asked = powerRequests.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(powerRequests.length).toBe(asked);
  });

  it('a power-on refused for a reason a person must fix (permission) is said once and not asked again', async () => {
    sysfs.plug(0);
    const { recovery, powerRequests, log } = start({ index: 0 }, { down: true, powerAnswer: { ok: false, reason: 'permission denied', retry: false } });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state(recovery)).toBe('powered-off');
    expect(powerRequests).toEqual([0]);
    expect(log.lines.filter((line) => /refused to power the adapter on/.test(String(line.msg)))).toHaveLength(1);
  });

  it('another program stops the scan or resets the controller: scanning meanwhile, and again within 5 s', async () => {
    sysfs.plug(0);
    const { recovery, sockets, hear, sightings } = start();
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning at start');
    const socket = sockets[0]!;

    socket.foreignCommand(0x200c, Buffer.from([0, 0]));
    expect(state(recovery)).toBe('scanning');
    await within(5_000, () => socket.scanning, 'the scan enabled again after a foreign stop');
    expect(recovery.restarts).toBe(1);

    socket.foreignReset();
    await vi.advanceTimersByTimeAsync(0);
    expect(socket.scanning).toBe(false);
    expect(state(recovery)).toBe('scanning');
    await within(5_000, () => socket.scanning, 'the scan enabled again after a foreign reset');
    expect(recovery.restarts).toBe(2);
    hear(0);
    expect(sightings.map((s) => s.deviceId)).toEqual(['7F3A9C']);
  });

  it('silence for an hour is no fault: no warning, no restart counted, no adapter reset', async () => {
    sysfs.plug(0);
    const { recovery, sockets, log } = start();
    await within(10_000, scanningOn(recovery, () => sockets[0]), 'scanning at start');
    const warningsBefore = log.lines.filter((line) => line.level >= 40).length;
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(state(recovery)).toBe('scanning');
    expect(recovery.restarts).toBe(0);
    expect(log.lines.filter((line) => line.level >= 40).length).toBe(warningsBefore);
    const refreshes = log.lines.filter((line) => /scan refreshed/.test(String(line.msg)));
    // One about every SILENT_SCAN_REFRESH_MS (looked at every 10 s).
    expect(refreshes.length).toBeGreaterThanOrEqual(Math.floor(3_600_000 / (SILENT_SCAN_REFRESH_MS + 10_000)));
    expect(refreshes.every((line) => line.level === 20)).toBe(true);
    expect(sockets[0]!.commands().some((c) => c.opcode === 0x0c03)).toBe(false);
  });

  it('an adapter that refuses the socket is unauthorized, with the fix, and tried again later', async () => {
    sysfs.plug(0);
    const { recovery, opened } = start({ index: 0 }, { refuse: true });
    expect(recovery.condition()).toEqual({ state: 'unauthorized', reason: expect.stringContaining('CAP_NET_RAW and CAP_NET_ADMIN') });
    await vi.advanceTimersByTimeAsync(REOPEN_UNUSABLE_MS);
    expect(opened).toEqual([0, 0]);
  });
});
