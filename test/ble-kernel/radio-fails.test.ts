import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootKernelGuestOrReason, kernelGuestUnavailable, type GuestLine, type GuestProcess, type KernelGuest } from '../support/kernel-guest.js';
import { advertiseScript, bleStateIs, buildDeb, cliStatus, hubStatus, logEntry, socketPairOutcome, startBtvirt, startDaemon, startSimulator, startSocketPair } from '../support/kernel-hub.js';

// Every row of the radio's failure table (docs/engineer/radio.md), through a real kernel: Debian
// 13's under qemu, with BlueZ's virtual controllers (btvirt -L -l2: the hub's adapter and a button that hear each other). The
// package's daemon runs as its unit runs it. For each row: what `status` (and for two rows `check`)
// says meanwhile, and the time from the adapter's return to the daemon's `scanning`, on the
// guest's own clock, asserted against its bound; then a new button, advertised only
// after the return, is linked, which proves the scan hears. One boot, the rows in sequence.
//
// Found here: each vhci controller has an rfkill switch of its own (rfkill0 for hci0...), so
// `rfkill block bluetooth` blocks it as on a hub; an unblocked adapter stays down until something
// powers it on (bluetoothd, or the daemon: nothing else runs here).
//
// These rows need the recovery ladder of src/discovery (adapter-recovery.ts): without it, the
// daemon that starts without an adapter stays `unavailable`, and every row fails.

const STEP_MS = 120_000;
/** The bounds: scanning again within ... of the adapter's return. */
const APPEARS_MS = 10_000;
const POWER_ON_MS = 5_000;
/**
 * The hub's adapter when it is named by address: btvirt's second controller at hci2. btvirt makes
 * a controller's address from its place in btvirt (the fourth byte) and its kernel index (the
 * last), and the kernel refuses to set a vhci controller's public address: the same address never
 * comes back under another index here. The ladder's fake-clock tests cover renumbering.
 */
const HUB_ADDRESS = '00:AA:01:01:00:02';

const unavailable = kernelGuestUnavailable();
const built = unavailable === undefined ? await buildDeb() : unavailable;
const booted = typeof built === 'string' ? built : await bootKernelGuestOrReason({ deb: built.deb });
const skipReason = typeof booted === 'string' ? booted : undefined;
if (skipReason !== undefined) process.stderr.write(`skipping the kernel radio suite: ${skipReason}\n`);

describe.skipIf(skipReason !== undefined)(`the radio as it fails, through the Linux kernel${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const guest = booted as KernelGuest;
  let daemon: GuestProcess;
  let controllers: GuestProcess | undefined;
  const figures: string[] = [];

  /** btvirt with `count` LE controllers, each set up; resolves with the guest time it was started. */
  const startControllers = (count: number, firstIndex: number): Promise<{ process: GuestProcess; startedAt: number }> => startBtvirt(guest, count, firstIndex);
  const stopControllers = async (process: GuestProcess | undefined): Promise<void> => {
    process?.signal('SIGTERM');
    await process?.exited;
  };
  /** The daemon's next `BLE state` line saying `state`, stamped at or after `after`. */
  const daemonSays = (state: string, after: number, timeoutMs = 60_000): Promise<GuestLine> =>
    daemon.waitForLine(bleStateIs(state), { after, timeoutMs, what: `the daemon's BLE state ${state}` });
  /** Scanning again after `since`, within `boundMs`; the figure is kept for the summary. */
  const scanningAgain = async (row: string, since: number, boundMs: number): Promise<number> => {
    const scanning = await daemonSays('scanning', since, boundMs + 30_000);
    const ms = scanning.t - since;
    figures.push(`${row}: scanning ${(ms / 1000).toFixed(2)} s after (bound ${boundMs / 1000} s)`);
    expect(ms).toBeLessThanOrEqual(boundMs);
    return ms;
  };
  /**
   * A button never heard before, advertised now on controller `index`, is linked: asked of the
   * daemon's control socket as `pair` asks it (the command itself is run in the first row and in
   * the rows that time what it prints).
   */
  const linksNewButton = async (deviceId: string, index: number): Promise<void> => {
    const pair = await startSocketPair(guest, deviceId, 60_000);
    await guest.check(advertiseScript(index, deviceId));
    expect(socketPairOutcome((await pair.exited).stdout)).toMatchObject({ ok: true, record: { deviceId, state: 'linked' } });
  };
  /** The same through the command, as an installer links it: `pair` prints that it linked it, and exits 0. */
  const commandLinksNewButton = async (deviceId: string, index: number): Promise<void> => {
    const pair = guest.start(`panic-pair pair ${deviceId} --timeout 60`);
    await pair.waitForLine(() => true, { what: 'pair to start' });
    await guest.check(advertiseScript(index, deviceId));
    const result = await pair.exited;
    expect(result.stdout + result.stderr).toContain(`Linked ${deviceId}`);
    expect(result.code).toBe(0);
  };
  /** The daemon's status says `state`, with a reason holding each of `words`. */
  const statusSays = async (state: string, ...words: string[]): Promise<void> => {
    const status = await hubStatus(guest);
    expect(status.ble).toBe(state);
    const problem = status.problems.find((text) => text.startsWith('BLE'));
    for (const word of words) expect(problem).toContain(word);
  };
  const now = (): Promise<number> => guest.clock();
  /**
   * status --json names the adapter `name` with `address`. (Not its state: right after the daemon
   * powers an adapter on, the kernel's own power-on sequence turns the new scan off and the daemon
   * starts it again a second later, so `starting` may show for that second.)
   */
  const adapterIs = async (name: string, address: string): Promise<void> => {
    const status = await hubStatus(guest);
    const adapter = status.bleAdapter as { name?: string; address?: string } | null | undefined;
    expect({ name: adapter?.name, address: adapter?.address?.toUpperCase() }).toEqual({ name, address });
  };

  beforeAll(async () => {
    process.stderr.write(`kernel guest booted in ${guest.bootSeconds.toFixed(1)} s${guest.slotWaitSeconds > 0 ? `, then waited ${guest.slotWaitSeconds.toFixed(1)} s for a slot` : ''}\n`);
    await startSimulator(guest);
    // Row 1's start: no controller at all (the modules are loaded, as on a Pi before hciuart).
    daemon = await startDaemon(guest, { hciDevice: 0 });
  }, 4 * STEP_MS);

  afterAll(async () => {
    if (figures.length > 0) process.stderr.write(`kernel radio rows:\n  ${figures.join('\n  ')}\n`);
    // A daemon that died mid-run: what it said last.
    const exit = await Promise.race([daemon?.exited.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 100, 'running'))]);
    if (exit !== 'running' && daemon !== undefined) process.stderr.write(`the daemon exited; its last lines:\n${daemon.lines.slice(-25).map((line) => line.text).join('\n')}\n`);
    await guest?.stop();
    if (typeof built !== 'string') built.dispose();
  }, STEP_MS);

  it('adapter absent when the daemon starts, then appears: unavailable, then scanning within 10 s', async () => {
    await daemonSays('unavailable', 0);
    await statusSays('unavailable', 'hci0');
    // The command itself once; the other rows ask the daemon's control socket as it does.
    const status = await cliStatus(guest);
    expect(status.ble).toBe('unavailable');
    expect(status.bleLastHeardSeconds).toBeNull();
    const check = await guest.run('panic-pair check');
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^FAIL BLE .*hci0/m);
    // With MQTT off nothing can hear a button: pair stops at once, naming the BLE reason (not exit 8, timed out).
    const pair = await guest.run('panic-pair pair ROW1NO --timeout 60');
    expect(pair.code).not.toBe(0);
    expect(pair.code).not.toBe(8);
    expect(pair.stdout + pair.stderr).toMatch(/hci0/);
    const appeared = await startControllers(2, 0);
    controllers = appeared.process;
    await scanningAgain('absent at start, then appears', appeared.startedAt, APPEARS_MS);
    await commandLinksNewButton('ROW1AP', 1);
    await adapterIs('hci0', '00:AA:01:00:00:00');
  }, 3 * STEP_MS);

  it('adapter removed (controller gone), then back at the same index: unavailable, then scanning within 10 s', async () => {
    const removedAt = await now();
    await stopControllers(controllers);
    await daemonSays('unavailable', removedAt);
    await statusSays('unavailable', 'hci0');
    const back = await startControllers(2, 0);
    controllers = back.process;
    await scanningAgain('removed, back at the same index', back.startedAt, APPEARS_MS);
    await linksNewButton('ROW2BK', 1);
  }, 3 * STEP_MS);

  it('powered off, then on (btmgmt): powered-off, then scanning within 5 s', async () => {
    const offAt = await now();
    await guest.check('true | btmgmt --index 0 power off');
    await daemonSays('powered-off', offAt);
    await statusSays('powered-off', 'hci0');
    const on = (await guest.start('true | btmgmt --index 0 power on >/dev/null; echo on').waitForLine((line) => line.text === 'on')).t;
    await scanningAgain('powered off, then on', on, POWER_ON_MS);
    await linksNewButton('ROW3PW', 1);
  }, STEP_MS);

  it('rfkill soft block, then unblock: blocked (fix: rfkill unblock bluetooth), then scanning within 5 s', async () => {
    const blockedAt = await now();
    await guest.check('rfkill block bluetooth');
    await daemonSays('blocked', blockedAt);
    await statusSays('blocked', 'rfkill unblock bluetooth');
    const check = await guest.run('panic-pair check');
    expect(check.stdout).toMatch(/^FAIL BLE .*fix: .*rfkill unblock bluetooth/m);
    const unblocked = (await guest.start('rfkill unblock bluetooth; echo unblocked').waitForLine((line) => line.text === 'unblocked')).t;
    await scanningAgain('rfkill block, then unblock', unblocked, POWER_ON_MS);
    // The button's controller was blocked too: advertiseScript powers it on again.
    await linksNewButton('ROW4RF', 1);
  }, STEP_MS);

  for (const [row, deviceId, command] of [
    ['another program resets the controller (HCI_Reset)', 'ROW5RS', 'hcitool -i hci0 cmd 0x03 0x0003'],
    ['another program stops the scan (LE Set Scan Enable 0)', 'ROW5ST', 'hcitool -i hci0 cmd 0x08 0x000c 00 00'],
  ] as const) {
    it(`${row}: scanning, and a button advertised after it is heard within 5 s`, async () => {
      const pair = guest.start(`panic-pair pair ${deviceId} --timeout 60`);
      await pair.waitForLine((line) => line.text.startsWith(`Waiting for button ${deviceId}`), { what: 'pair to wait' });
      // The button starts advertising right after: a scan that is still (or again) on hears it.
      const done = guest.start(`${command} >/dev/null; echo done; ${advertiseScript(1, deviceId)} >/dev/null`);
      const doneAt = (await done.waitForLine((line) => line.text === 'done')).t;
      const heard = await pair.waitForLine((line) => /^(Checking|Linking|✔ Linked)/.test(line.text), { what: `${deviceId} heard`, timeoutMs: 60_000 });
      const ms = heard.t - doneAt;
      figures.push(`${row}: heard ${(ms / 1000).toFixed(2)} s after (bound 5 s)`);
      const paired = await pair.exited;
      expect(paired.stdout + paired.stderr).toContain(`Linked ${deviceId}`);
      expect(paired.code).toBe(0);
      expect(ms).toBeLessThanOrEqual(POWER_ON_MS);
      expect((await hubStatus(guest)).ble).toBe('scanning');
    }, STEP_MS);
  }

  it('bluetoothd running beside it, its discovery started and stopped: scanning throughout', async () => {
    const since = await now();
    await guest.check('mkdir -p /run/dbus && dbus-daemon --system --fork');
    const bluetoothd = guest.start('exec /usr/libexec/bluetooth/bluetoothd -n');
    await bluetoothd.waitForLine((line) => line.text.includes('Bluetooth management interface'), { what: 'bluetoothd to start' });
    const pair = guest.start('panic-pair pair ROW6BZ --timeout 60');
    await pair.waitForLine((line) => line.text.startsWith('Waiting for button ROW6BZ'), { what: 'pair to wait' });
    // bluetoothd's own discovery on the hub's adapter: the kernel turns the LE scan on and off.
    const done = guest.start(`bluetoothctl --timeout 4 scan on >/dev/null; echo done; ${advertiseScript(1, 'ROW6BZ')} >/dev/null`);
    const doneAt = (await done.waitForLine((line) => line.text === 'done', { timeoutMs: 60_000 })).t;
    const heard = await pair.waitForLine((line) => /^(Checking|Linking|✔ Linked)/.test(line.text), { what: 'ROW6BZ heard', timeoutMs: 60_000 });
    figures.push(`bluetoothd's discovery stopped: heard ${((heard.t - doneAt) / 1000).toFixed(2)} s after (bound 5 s)`);
    const paired = await pair.exited;
    expect(paired.stdout + paired.stderr).toContain('Linked ROW6BZ');
    expect(paired.code).toBe(0);
    expect(heard.t - doneAt).toBeLessThanOrEqual(POWER_ON_MS);
    expect((await hubStatus(guest)).ble).toBe('scanning');
    // Never anything but scanning meanwhile.
    const states = daemon.lines.filter((line) => line.t >= since).map((line) => logEntry(line)?.ble).filter((state) => state !== undefined);
    expect(states.filter((state) => state !== 'scanning')).toEqual([]);
    // Stopped, so that nothing but the daemon powers adapters on in the next row.
    bluetoothd.signal('SIGTERM');
    await bluetoothd.exited;
  }, 2 * STEP_MS);
  it('adapter named by its address: found at whatever index, another adapter in its place not taken, scanning within 10 s of its return', async () => {
    daemon.signal('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
    await stopControllers(controllers);
    // A controller of another btvirt takes hci0: the hub is hci2, the button hci1.
    const filler = await startControllers(1, 0);
    const first = await startControllers(2, 1);
    controllers = first.process;
    daemon = await startDaemon(guest, { hciDevice: HUB_ADDRESS });
    await daemonSays('scanning', 0);
    await adapterIs('hci2', HUB_ADDRESS);
    const removedAt = await now();
    await stopControllers(controllers);
    await daemonSays('unavailable', removedAt);
    // Another adapter where the hub was (btvirt's first controller at hci1, another address): not taken.
    const stranger = await startControllers(1, 1);
    await statusSays('unavailable');
    await stopControllers(stranger.process);
    const back = await startControllers(2, 1);
    controllers = back.process;
    await scanningAgain('removed, back (named by address, another adapter meanwhile)', back.startedAt, APPEARS_MS);
    await adapterIs('hci2', HUB_ADDRESS);
    await linksNewButton('ROW2AD', 1);
    await stopControllers(filler.process);
  }, 4 * STEP_MS);
});
