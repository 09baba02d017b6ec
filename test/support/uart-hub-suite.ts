import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import type { DebianArchitecture } from './guest-architecture.js';
import { bootKernelGuestOrReason, kernelGuestUnavailable, type GuestLine, type GuestProcess, type KernelGuest } from './kernel-guest.js';
import { advertiseScript, bleStateIs, buildDeb, cliStatus, hubStatus, logEntry, socketPairOutcome, startDaemon, startSimulator, startSocketPair } from './kernel-hub.js';
import { attachUart, detachUart, startControllerServer, uart, type Uart } from './uart-controllers.js';

// The package of one architecture on Debian's own kernel for it, its controllers on UARTs
// (uart-controllers.ts), as a Raspberry Pi's onboard one is. One boot and few
// steps, each waiting on the daemon's own lines: under software emulation Node runs about ten
// times slower than on the host. The button's controller is attached first (hci0); the hub's
// (hci1, the daemon's adapter) only after the daemon started, as hciuart attaches it at boot.
// The figures (docs/reference/performance.md) are written to stderr at the end.

const BUTTON_INDEX = 0;
const HUB_INDEX = 1;
/**
 * The bound: scanning within 10 s of the adapter appearing or coming back.
 * Measured on the guest's clock, which runs at the host's pace while the emulated CPU does its part
 * of those seconds (the ladder's look for the adapter, its open and power-on) `slowness` times
 * slower (guest-architecture.ts): the bound is 10 s times the guest's slowness.
 */
const APPEARS_MS = 10_000;
/**
 * The bounds on memory under bad input, relative to the idle daemon: at rest after its input, its
 * RSS is back within 20 MB of where it started, within 2 minutes (here times the guest's slowness, for
 * V8's idle collection under emulation).
 */
const AT_REST_OVER_START_KB = 20 * 1024;
const BACK_AT_REST_MS = 120_000;
const STEP_MS = 120_000;
/** The kernel's name for each machine (`uname -m`). */
const UNAME: Record<DebianArchitecture, string> = { amd64: 'x86_64', arm64: 'aarch64', armhf: 'armv7l' };

export interface UartGuest {
  guest: KernelGuest;
  dispose(): void;
}

/** The package built for `architecture` and a guest booted with it, or why not here (a suite skips). */
export async function uartGuestOrReason(architecture: DebianArchitecture): Promise<UartGuest | string> {
  const unavailable = kernelGuestUnavailable(architecture);
  if (unavailable !== undefined) return unavailable;
  const built = await buildDeb(architecture);
  if (typeof built === 'string') return built;
  try {
    const guest = await bootKernelGuestOrReason({ deb: built.deb, architecture });
    if (typeof guest === 'string') built.dispose();
    return typeof guest === 'string' ? guest : { guest, dispose: built.dispose };
  } catch (error) {
    built.dispose();
    throw error;
  }
}

export function describeUartHub(architecture: DebianArchitecture, booted: UartGuest | string): void {
  const skipReason = typeof booted === 'string' ? booted : undefined;
  if (skipReason !== undefined) process.stderr.write(`skipping the ${architecture} UART suite: ${skipReason}\n`);
  const title = `the ${architecture} package on Debian's ${architecture} kernel, its controllers on a UART${skipReason ? ` (skipped: ${skipReason})` : ''}`;

  describe.skipIf(skipReason !== undefined)(title, () => {
    const { guest } = booted as UartGuest;
    const slowness = guest?.architecture.slowness ?? 1;
    const stepMs = STEP_MS * slowness;
    const appearsMs = APPEARS_MS * slowness;
    const figures: string[] = [];
    /** The daemon's RSS once it first scanned, idle: where it started. */
    let startedRssKb: number | undefined;
    let daemon: GuestProcess;
    let simulator: Simulator;
    let button: Uart;
    let hub: Uart;

    const daemonSays = (state: string, after: number): Promise<GuestLine> =>
      daemon.waitForLine(bleStateIs(state), { after, timeoutMs: 60_000 * slowness, what: `the daemon's BLE state ${state}` });
    /** Scanning again after `since` (guest ms), within 10 s times the guest's slowness; the figure is kept. */
    const scanningAgain = async (row: string, since: number): Promise<GuestLine> => {
      const scanning = await daemonSays('scanning', since);
      figures.push(`${row}: scanning ${((scanning.t - since) / 1000).toFixed(2)} s after (bound ${APPEARS_MS / 1000} s × slowness ${slowness})`);
      expect(scanning.t - since).toBeLessThanOrEqual(appearsMs);
      return scanning;
    };
    /** The daemon's resident memory now, in kB, from its /proc status in the guest. */
    const rssKb = async (): Promise<number> => {
      const pid = daemon.lines.map(logEntry).find((entry) => typeof entry?.pid === 'number')?.pid as number;
      return Number(/^VmRSS:\s+(\d+) kB/m.exec(await guest.check(`cat /proc/${pid}/status`))?.[1]);
    };
    const mb = (kb: number): string => (kb / 1024).toFixed(1);
    /** `panic-pair pair`, once it waits for the button. */
    const startCommandPair = async (deviceId: string): Promise<GuestProcess> => {
      const pair = guest.start(`panic-pair pair ${deviceId} --timeout ${60 * slowness}`);
      await pair.waitForLine((line) => line.text.startsWith(`Waiting for button ${deviceId}`), { what: 'pair to wait for the button', timeoutMs: 60_000 * slowness });
      return pair;
    };

    /**
     * `pair` waits, the button advertises, one POST links it; the figure from its first
     * advertisement to `linked`. Through the command, or (`socket`) asked of the daemon's control
     * socket as the command asks it (startSocketPair).
     */
    const pairs = async (deviceId: string, through: 'command' | 'socket'): Promise<void> => {
      const socket = through === 'socket';
      const pair = socket ? await startSocketPair(guest, deviceId, 60_000 * slowness) : await startCommandPair(deviceId);
      const advertising = await guest.start(`${advertiseScript(BUTTON_INDEX, deviceId)} >/dev/null && echo advertising`).waitForLine((line) => line.text === 'advertising');
      const done = (line: GuestLine): boolean => (socket ? /"type":"(result|error)"/.test(line.text) : line.text.includes(`Linked ${deviceId}`));
      const linked = await pair.waitForLine(done, { what: `${deviceId} linked`, timeoutMs: 60_000 * slowness });
      const result = await pair.exited;
      expect(result.code).toBe(0);
      if (socket) expect(socketPairOutcome(result.stdout)).toMatchObject({ ok: true, record: { deviceId, state: 'linked' } });
      expect(simulator.stats().postsByDevice[deviceId]).toBe(1);
      figures.push(`${deviceId}: linked ${((linked.t - advertising.t) / 1000).toFixed(2)} s after its first advertisement`);
    };

    beforeAll(async () => {
      figures.push(`boot to the guest's init: ${guest.bootSeconds.toFixed(1)} s${guest.slotWaitSeconds > 0 ? `, then ${guest.slotWaitSeconds.toFixed(1)} s waiting for a slot` : ''}`);
      simulator = await startSimulator(guest);
      await startControllerServer(guest);
      button = uart('/dev/ttyBT0');
      await attachUart(guest, button, BUTTON_INDEX);
      hub = uart('/dev/ttyBT1');
      daemon = await startDaemon(guest, { hciDevice: HUB_INDEX });
    }, 4 * stepMs);

    afterAll(async () => {
      process.stderr.write(`${architecture} UART rows:\n  ${figures.join('\n  ')}\n`);
      await guest?.stop();
      if (typeof booted !== 'string') booted.dispose();
    }, stepMs);

    it(`runs Debian's ${architecture} kernel, with the ${architecture} package installed by dpkg, and no compiler nor npm`, async () => {
      const [machine, installed] = (await guest.check("uname -m; dpkg-query -W -f='${Architecture}\\n' panic-pair")).trim().split('\n');
      expect(machine).toBe(UNAME[architecture]);
      expect(installed).toBe(architecture);
      expect((await guest.run('command -v npm cc gcc g++ node-gyp')).stdout.trim()).toBe('');
    }, stepMs);

    it(`the controller attached late (btattach after the daemon started, as hciuart at boot): unavailable, then scanning within ${appearsMs / 1000} s`, async () => {
      await daemonSays('unavailable', 0);
      expect((await hubStatus(guest)).ble).toBe('unavailable');
      const attachedAt = await attachUart(guest, hub, HUB_INDEX);
      await scanningAgain('attached late', attachedAt);
      startedRssKb = await rssKb();
    }, stepMs);

    it('hears a button through the UART, and `pair` links it with exactly one POST', async () => {
      await pairs('UART01', 'command');
    }, stepMs);

    it('`check` passes its BLE line; `status --json` names bleAdapter; the daemon at rest within 20 MB of its start', async () => {
      const check = await guest.run('panic-pair check');
      expect(check.stdout).toMatch(/^PASS BLE/m);
      const status = await cliStatus(guest);
      expect(status.ble).toBe('scanning');
      const adapter = status.bleAdapter as { name?: string; address?: string } | null;
      expect(adapter?.name).toBe(`hci${HUB_INDEX}`);
      expect(adapter?.address).toMatch(/^([0-9A-F]{2}:){5}[0-9A-F]{2}$/i);
      // After a link and this check, read until it is back within the bound or the time allowed is up.
      expect(startedRssKb, "the daemon's RSS once it first scanned (the row before)").toBeGreaterThan(0);
      const until = (await guest.clock()) + BACK_AT_REST_MS * slowness;
      let rest = await rssKb();
      while (rest - startedRssKb! > AT_REST_OVER_START_KB && (await guest.clock()) < until) {
        await guest.check('sleep 5');
        rest = await rssKb();
      }
      figures.push(`the daemon's RSS at rest, after a link: ${mb(rest)} MB (${mb(startedRssKb!)} MB once it first scanned; bound +${mb(AT_REST_OVER_START_KB)} MB)`);
      expect(rest - startedRssKb!).toBeLessThanOrEqual(AT_REST_OVER_START_KB);
    }, stepMs + BACK_AT_REST_MS * slowness);

    it(`the UART detached (btattach killed), then attached again: unavailable, then scanning within ${appearsMs / 1000} s, and a new button is linked`, async () => {
      const detachedAt = await guest.clock();
      await detachUart(guest, hub, HUB_INDEX);
      await daemonSays('unavailable', detachedAt);
      const attachedAt = await attachUart(guest, hub, HUB_INDEX);
      await scanningAgain('detached, attached again', attachedAt);
      await pairs('UART02', 'socket');
    }, 2 * stepMs);

    it('SIGTERM exits 0; started again with the controller there, it scans', async () => {
      daemon.signal('SIGTERM');
      expect((await daemon.exited).code).toBe(0);
      const startedAt = await guest.clock();
      daemon = await startDaemon(guest, { hciDevice: HUB_INDEX });
      const scanning = await daemonSays('scanning', startedAt);
      figures.push(`daemon start to scanning: ${((scanning.t - startedAt) / 1000).toFixed(2)} s`);
      daemon.signal('SIGTERM');
      expect((await daemon.exited).code).toBe(0);
    }, 2 * stepMs);
  });
}
