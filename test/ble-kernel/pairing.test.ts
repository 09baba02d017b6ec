import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptReport } from '../authentication/bthome-vectors.js';
import { bootKernelGuestOrReason, kernelGuestUnavailable, type KernelGuest } from '../support/kernel-guest.js';
import { advertiseScript, askHub, bleStateIs, buildDeb, logEntry, powerOnScript, startBtvirt, startHub, type KernelHub } from '../support/kernel-hub.js';

// Buttons heard through a real kernel, supervised, one of them keyed: Debian 13's kernel under
// qemu, BlueZ's btvirt making four virtual LE controllers that hear each other. hci0 is the hub's
// adapter, opened by the package's daemon through its HCI module as the package's unit runs it
// (user panic-pair, only CAP_NET_RAW and CAP_NET_ADMIN). hci1 is a button advertising the default
// profile's name, which `pair` links with one POST to the simulator. hci2 is a keyed button: its
// name and encrypted BTHome v2 service data (0xFCD2, its MAC included), its counter one up at each
// report, paired with its key. Then both fall silent at once, while hci3 plays the keyed button's
// last advertisement back, again and again, as a phone that recorded it would: supervision shows
// the plain button missing within its profile's 60 s deadline, and online again when it
// advertises; the replay verifies but its counter is no longer new, so once SAME_REPORT_MS has
// passed since the report it copies (before, it is that report heard again) it is counted as
// replayed, never heard, and the keyed button goes missing too, named imitated. Last, `check` run while the
// daemon scans leaves its scan alone. One boot for the file, and one wait for the deadline.

const BUTTON = '7F3A9C';
const KEYED = 'K1';
const KEY = Buffer.from('5ac4b7d9e0f1a2b3c4d5e6f708192a3b', 'hex');
const HUB_INDEX = 0;
const BUTTON_INDEX = 1;
const KEYED_INDEX = 2;
const REPLAY_INDEX = 3;
const STEP_MS = 120_000;
/** The default profile with the shortest deadline allowed (a minute), so the rows fit a test. */
const PROFILES = [{ name: 'panic-button', match: { namePrefix: 'PANIC-' }, deviceId: { from: 'nameSuffix' }, supervisionSeconds: 60 }];
/** How often the keyed button reports on the guest's clock: well inside the 60 s deadline, which a longer interval would test no better. */
const REPORT_EVERY_S = 3;

const unavailable = kernelGuestUnavailable();
const built = unavailable === undefined ? await buildDeb() : unavailable;
const booted = typeof built === 'string' ? built : await bootKernelGuestOrReason({ deb: built.deb });
const skipReason = typeof booted === 'string' ? booted : undefined;
if (skipReason !== undefined) process.stderr.write(`skipping the kernel pairing suite: ${skipReason}\n`);

/** The keyed button's advertisement: Complete Local Name `PANIC-K1`, then the service data (31 bytes, all a legacy advertisement holds), as hex for btmgmt add-adv. */
function keyedAdvertisement(mac: string, counter: number, battery: number): string {
  const name = Buffer.from(`PANIC-${KEYED}`);
  // The MAC in the payload (device information bit 1), as a button whose radio sends from a random
  // address does: what the hub verifies with, whichever address the controller sends from.
  const sealed = encryptReport({ key: KEY, mac, counter, objects: Buffer.from([0x01, battery]), macIncluded: true });
  const serviceData = Buffer.concat([Buffer.from([0xd2, 0xfc]), sealed]);
  return Buffer.concat([Buffer.from([name.length + 1, 0x09]), name, Buffer.from([serviceData.length + 1, 0x16]), serviceData]).toString('hex');
}

/** Controller `index` powered on and advertising `hex` (instance 1, replaced if it was there). */
const advertise = (index: number, hex: string): string => `${powerOnScript(index)} && true | btmgmt --index ${index} add-adv -d ${hex} 1`;

interface DeviceJson {
  deviceId: string;
  state: string;
  source: string;
  supervision?: string;
  battery?: number | null;
  authenticated?: boolean;
  reports?: { verified: number; forged: number; replayed: number; plain: number };
}

describe.skipIf(skipReason !== undefined)(`buttons through the Linux kernel's Bluetooth stack${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const guest = booted as KernelGuest;
  let hub: KernelHub;
  let mac: string;
  let counter = 1000;
  let last = '';

  const report = async (): Promise<void> => {
    counter += 1;
    last = keyedAdvertisement(mac, counter, 87);
    await guest.check(advertise(KEYED_INDEX, last));
  };
  /** A button's row of `devices --json`, asked of the daemon's control socket as the command asks it. */
  const device = async (deviceId: string): Promise<DeviceJson | undefined> => (await askHub<DeviceJson[]>(guest, { type: 'devices' })).find((row) => row.deviceId === deviceId);
  const missingLine = (deviceId: string, after: number, what: string) =>
    hub.daemon.waitForLine((line) => logEntry(line)?.msg === 'button missing: not heard within its deadline' && logEntry(line)?.deviceId === deviceId, {
      after,
      timeoutMs: 3 * STEP_MS,
      what,
    });

  beforeAll(async () => {
    process.stderr.write(`kernel guest booted in ${guest.bootSeconds.toFixed(1)} s${guest.slotWaitSeconds > 0 ? `, then waited ${guest.slotWaitSeconds.toFixed(1)} s for a slot` : ''}\n`);
    await startBtvirt(guest, 4, 0);
    // Powered on as bluetoothd or a hub's setup would; an adapter left down is a row of radio-fails.test.ts.
    await guest.check(powerOnScript(HUB_INDEX));
    // The keyed button's own address, which its reports carry.
    mac = /addr ((?:[0-9A-F]{2}:){5}[0-9A-F]{2})/.exec(await guest.check(`true | btmgmt --index ${KEYED_INDEX} info`))?.[1] ?? '';
    expect(mac).not.toBe('');
    await guest.check(`umask 077 && printf '%s\\n' ${KEY.toString('hex')} > /root/k1.key`);
    hub = await startHub(guest, { hciDevice: HUB_INDEX, settings: { profiles: PROFILES } });
  }, 4 * STEP_MS);

  afterAll(async () => {
    await guest?.stop();
    if (typeof built !== 'string') built.dispose();
  }, STEP_MS);

  it('the daemon runs as the unit says (user panic-pair, two capabilities) and scans hci0', async () => {
    const scanning = await hub.daemon.waitForLine(bleStateIs('scanning'), { what: 'BLE scanning' });
    const pid = logEntry(scanning)?.pid as number;
    const proc = await guest.check(`grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs):' /proc/${pid}/status`);
    expect(proc).toMatch(/^Uid:\s+(\d+)\s/m);
    expect(proc).not.toMatch(/^Uid:\s+0\s/m);
    // CAP_NET_ADMIN is bit 12, CAP_NET_RAW bit 13: 0x3000, and nothing else.
    expect(proc).toMatch(/^CapEff:\s+0000000000003000$/m);
    expect(proc).toMatch(/^CapBnd:\s+0000000000003000$/m);
    expect(proc).toMatch(/^NoNewPrivs:\s+1$/m);
    expect((await hub.status()).ble).toBe('scanning');
  }, STEP_MS);

  it('hears the button through the kernel, and `pair` links it with exactly one POST', async () => {
    const pair = guest.start(`panic-pair pair ${BUTTON} --timeout 60`);
    await pair.waitForLine((line) => line.text.startsWith(`Waiting for button ${BUTTON}`), { what: 'pair to wait for the button' });
    await guest.check(advertiseScript(BUTTON_INDEX, BUTTON));
    const result = await pair.exited;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Linked ${BUTTON}`);
    expect(hub.simulator.stats().postsByDevice).toEqual({ [BUTTON]: 1 });
    // The command itself, once.
    const devices = JSON.parse(await guest.check('panic-pair devices --json')) as DeviceJson[];
    expect(devices).toEqual([expect.objectContaining({ deviceId: BUTTON, state: 'linked', source: 'ble' })]);
    const status = await hub.status();
    expect(status.ble).toBe('scanning');
    expect((status.counters as { announcements: number }).announcements).toBeGreaterThanOrEqual(1);
  }, STEP_MS);

  it('a keyed button is linked with one POST once a report verifies with its key, and stays online on its own reports, with its battery', async () => {
    const pair = guest.start(`panic-pair pair ${KEYED} --key-file /root/k1.key --timeout 60`);
    await pair.waitForLine((line) => line.text.startsWith(`Waiting for button ${KEYED}`), { what: 'pair to wait for the button', timeoutMs: STEP_MS });
    await report();
    const result = await pair.exited;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`Linked ${KEYED}`);
    expect(hub.simulator.stats().postsByDevice).toEqual({ [BUTTON]: 1, [KEYED]: 1 });
    // Its reports, each with a new counter, a button's interval apart.
    for (let i = 0; i < 3; i++) {
      await guest.check(`sleep ${REPORT_EVERY_S}`);
      await report();
    }
    await guest.check('sleep 2');
    const row = await device(KEYED);
    expect(row).toMatchObject({ state: 'linked', authenticated: true, supervision: 'online', battery: 87 });
    expect(row?.reports?.verified).toBeGreaterThanOrEqual(2);
    expect(row?.reports).toMatchObject({ forged: 0, replayed: 0 });
    // The key is in no output.
    expect(JSON.stringify(row)).not.toContain(KEY.toString('hex'));
    expect(hub.daemon.lines.some((line) => line.text.includes(KEY.toString('hex')))).toBe(false);
  }, 3 * STEP_MS);

  // The two buttons fall silent together: one deadline waited for both.
  describe.concurrent('both fall silent', () => {
    it('the plain button is missing within its deadline plus a minute, and online when it advertises again', async ({ expect }) => {
      // A btvirt controller reports an advertising instance once as it starts, and once more to
      // each controller that starts scanning: advertised again, the button is heard now, whatever
      // the scan heard since its link.
      await guest.check(advertiseScript(BUTTON_INDEX, BUTTON));
      await expect.poll(async () => (await device(BUTTON))?.supervision, { timeout: STEP_MS, interval: 1_000 }).toBe('online');
      const stopped = await guest.run(`true | btmgmt --index ${BUTTON_INDEX} rm-adv 1`);
      expect(stopped.code, stopped.stdout + stopped.stderr).toBe(0);
      const silentAt = stopped.t;
      const missing = await missingLine(BUTTON, silentAt, 'the silent button missing');
      // On the guest's own clock: the profile's 60 s and the minute allowed past it.
      expect(missing.t - silentAt).toBeLessThanOrEqual(120_000);
      expect(await device(BUTTON)).toMatchObject({ state: 'linked', supervision: 'missing' });
      const report = await hub.status();
      expect(report.problems).toContainEqual(expect.stringContaining(`button ${BUTTON} missing for`));
      expect(report.ble).toBe('scanning');

      const again = await guest.clock();
      await guest.check(advertiseScript(BUTTON_INDEX, BUTTON));
      await hub.daemon.waitForLine((line) => logEntry(line)?.msg === 'missing button heard again' && logEntry(line)?.deviceId === BUTTON, {
        after: again,
        timeoutMs: STEP_MS,
        what: 'the button heard again',
      });
      expect((await device(BUTTON))?.supervision).toBe('online');
    }, 5 * STEP_MS);

    it("the keyed button's advertisement played back by another controller never keeps it online: counted, missing in time, imitated", async ({ expect }) => {
      const stopped = await guest.run(`true | btmgmt --index ${KEYED_INDEX} rm-adv 1`);
      expect(stopped.code, stopped.stdout + stopped.stderr).toBe(0);
      const silentAt = stopped.t;
      // The recording, played back from hci3 every few seconds until the hub says the button is missing.
      let missing = false;
      const replaying = (async () => {
        while (!missing) {
          await guest.check(advertise(REPLAY_INDEX, last));
          await guest.check(`sleep ${REPORT_EVERY_S}`);
        }
      })();
      const missed = await missingLine(KEYED, silentAt, 'the silent keyed button missing despite its replayed advertisement').finally(() => (missing = true));
      await replaying;
      // On the guest's own clock: the profile's 60 s and the minute allowed past it.
      expect(missed.t - silentAt).toBeLessThanOrEqual(120_000);
      const status = await hub.status();
      // The recording is the button's own bytes, its MAC inside: it verifies, so it is counted as
      // replayed (past SAME_REPORT_MS after the report it copies), never as forged.
      const counters = status.counters as { forged: number; replayed: number; plain: number };
      expect(counters.replayed).toBeGreaterThanOrEqual(1);
      expect(counters.forged).toBe(0);
      expect(status.problems).toContainEqual(expect.stringContaining(`button ${KEYED} imitated`));
      expect(status.problems).toContainEqual(expect.stringContaining(`button ${KEYED} missing`));
      const row = await device(KEYED);
      expect(row?.supervision).toBe('missing');
      expect(row?.reports?.replayed).toBeGreaterThanOrEqual(1);
      expect(row?.reports?.forged).toBe(0);
      await guest.run(`true | btmgmt --index ${REPLAY_INDEX} rm-adv 1`);
    }, 5 * STEP_MS);
  });

  it('`check` while the daemon scans never stops or restarts its scan', async () => {
    const before = (await hub.status()).bleRestarts as number;
    const from = await guest.clock();
    // Once: a `check` that disturbed the scan would do it each time (each is 10 to 16 s of the guest's CPU).
    const check = await guest.run('panic-pair check');
    expect(check.stdout).toMatch(/^PASS BLE/m);
    await guest.check('sleep 3');
    const after = await hub.status();
    expect(after.ble).toBe('scanning');
    expect(after.bleRestarts).toBe(before);
    expect(hub.daemon.lines.filter((line) => line.t >= from && /stopped by something else|was reset by something else/.test(line.text))).toEqual([]);
  }, 2 * STEP_MS);
});
