import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSimulator as startApiSimulator, type Simulator } from '../../src/simulator/index.js';
import { checkoutPackage } from './checkout-package.js';
import type { DebianArchitecture } from './guest-architecture.js';
import { findExecutable } from './installed.js';
import type { GuestLine, GuestProcess, KernelGuest } from './kernel-guest.js';

// A hub inside the kernel guest (kernel-guest.ts): the package's daemon started as its unit runs it
// (run-as-unit.sh: the unit's user, capabilities and environment), the API simulator on the host
// brought onto the guest's loopback, and virtual controllers made by btvirt: the hub's adapter,
// and buttons that advertise a profile's data through btmgmt.

export const GUEST_TOKEN = 'kernel-token-4f1c9e';
export const CUSTOMER_ID = 42;
const API_PORT = 8080;
const RUN_AS_UNIT = '/usr/local/lib/panic-pair-test/run-as-unit.sh';
/** Where the daemon run as its unit (RuntimeDirectory=panic-pair) listens. */
const CONTROL_SOCKET = '/run/panic-pair/panic-pair.sock';

/** Debian's cross compilers, which `npm run deb` builds an arm package's HCI module with. */
const CROSS_COMPILERS: Record<DebianArchitecture, string | undefined> = { amd64: undefined, arm64: 'aarch64-linux-gnu-g++', armhf: 'arm-linux-gnueabihf-g++' };

/** The package built for `architecture` (amd64 unless named) by `npm run deb` (once in the run), or why it cannot be. */
export async function buildDeb(architecture: DebianArchitecture = 'amd64'): Promise<{ deb: string; dispose(): void } | string> {
  const headers = path.join(path.dirname(process.execPath), '..', 'include', 'node', 'node_version.h');
  if (!existsSync(headers)) return `no Node headers at ${headers} to build the package with`;
  const compiler = CROSS_COMPILERS[architecture];
  if (compiler !== undefined && findExecutable(compiler) === undefined) return `not installed: ${compiler} (apt-get install g++-${compiler.replace(/-g\+\+$/, '')})`;
  // The run's package, shared with the other suites: removed with the run, not by the suite.
  return { deb: await checkoutPackage(architecture), dispose: () => undefined };
}

/** The default profile's advertisement: AD type 0x09, Complete Local Name `PANIC-<id>`, as hex. */
export function buttonAdvertisement(deviceId: string): string {
  const name = Buffer.from(`PANIC-${deviceId}`);
  return Buffer.concat([Buffer.from([name.length + 1, 0x09]), name]).toString('hex');
}

/**
 * A shell line that waits until the kernel's management interface lists each of `indexes` (a
 * controller is listed once its setup is done; sysfs shows it from its registration), for at most
 * `seconds`; exit 1 when one is still not listed then.
 */
export function readyScript(indexes: readonly number[], seconds: number): string {
  const listed = indexes.map((index) => `printf '%s\\n' "$info" | grep -q '^hci${index}:'`).join(' && ');
  return `end=$(( $(date +%s) + ${Math.ceil(seconds)} )); until info=$(true | btmgmt info 2>&1); ${listed}; do [ "$(date +%s)" -ge "$end" ] && exit 1; sleep 0.2; done`;
}

/** How long a virtual controller is given to come out of its setup before btvirt is started again. */
const SETUP_SECONDS = 20;
const BTVIRT_ATTEMPTS = 3;

/**
 * btvirt with `count` LE controllers at hci<firstIndex>...: resolves once the kernel lists each as
 * set up, with the guest time the btvirt that made them started. A controller whose setup failed
 * stays registered and unusable (the management interface answers "Invalid Index" for it): the
 * kernel gives a controller 2 s to answer each setup command, which an emulator in a guest under
 * TCG can miss. It did, for the first controller after boot, while the kernel loaded the crypto
 * btvirt asks of it on first use; guest-init.sh now loads that at boot. Should it happen still,
 * btvirt is stopped and started again, said on stderr.
 */
export async function startBtvirt(guest: KernelGuest, count: number, firstIndex: number): Promise<{ process: GuestProcess; startedAt: number }> {
  const indexes = Array.from({ length: count }, (_, i) => firstIndex + i);
  for (let attempt = 1; ; attempt += 1) {
    const process = guest.start(`echo starting; exec btvirt -L -l${count}`);
    const started = await process.waitForLine((line) => line.text === 'starting', { what: 'btvirt to start' });
    await guest.check(`until [ -e /sys/class/bluetooth/hci${firstIndex + count - 1} ]; do sleep 0.05; done`);
    const ready = await guest.run(readyScript(indexes, SETUP_SECONDS * guest.architecture.slowness));
    if (ready.code === 0) return { process, startedAt: started.t };
    process.signal('SIGTERM');
    await process.exited;
    await guest.check(`while [ -e /sys/class/bluetooth/hci${firstIndex} ]; do sleep 0.05; done`);
    if (attempt >= BTVIRT_ATTEMPTS) throw new Error(`btvirt's controllers hci${indexes.join(', hci')} never came out of their setup in ${attempt} tries`);
    globalThis.process.stderr.write(`btvirt's controllers were not all set up within ${SETUP_SECONDS} s; starting btvirt again\n`);
  }
}

/**
 * A shell line that powers controller `index` on, once the kernel has it ready. A controller is
 * listed in sysfs from the moment it registers, but while its setup runs (hci_uart on a slow guest
 * takes seconds) the management interface answers "Invalid Index" (or "Busy"): asked again until it
 * answers otherwise, and any other failure ends the line (exit 1) with btmgmt's words. btmgmt reads commands
 * from stdin after its arguments' one, and waits forever on /dev/null: it is given an empty pipe.
 */
export function powerOnScript(index: number): string {
  // btmgmt exits 0 whether the kernel agreed or not: its words say which.
  return `while :; do out=$(true | btmgmt --index ${index} power on 2>&1); case "$out" in *"Invalid Index"*|*Busy*) sleep 0.2;; *failed*) printf '%s\\n' "$out" >&2; exit 1;; *) break;; esac; done`;
}

/**
 * A shell line that powers controller `index` on and makes it advertise the button `deviceId`
 * (in place of what it advertised). A virtual controller sends one advertising report each time
 * advertising starts, and one to each controller that starts scanning meanwhile.
 */
export function advertiseScript(index: number, deviceId: string): string {
  // Adding instance 1 again replaces it (mgmt's Add Advertising).
  return `${powerOnScript(index)} && true | btmgmt --index ${index} add-adv -d ${buttonAdvertisement(deviceId)} 1`;
}

/** A JSON log line of the daemon, or undefined for anything else. */
export function logEntry(line: GuestLine): Record<string, unknown> | undefined {
  if (!line.text.startsWith('{')) return undefined;
  try {
    return JSON.parse(line.text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A daemon log line saying BLE is in `state` (its `ble` field: a change of state, or the start-up summary). */
export const bleStateIs =
  (state: string) =>
  (line: GuestLine): boolean =>
    logEntry(line)?.ble === state;

export interface KernelHub {
  daemon: GuestProcess;
  simulator: Simulator;
  /** `panic-pair status --json` in the guest. */
  status(): Promise<HubStatus>;
}

export interface HubOptions {
  /** PANIC_PAIR_HCI_DEVICE: an index or an address. */
  hciDevice: number | string;
  /** More settings for config.json. */
  settings?: Record<string, unknown>;
}

/**
 * The API simulator, run on the host's loopback by this test process and brought onto the guest's
 * 127.0.0.1:8080 by its agent (guest-agent.ts): the daemon in the guest asks the API there. Run in
 * the guest, it took a Node start under TCG (15 s of the guest's CPU on amd64, about 40 s on arm)
 * and the guest's CPU for every answer. Closed when the guest stops.
 */
export async function startSimulator(guest: KernelGuest): Promise<Simulator> {
  const simulator = await startApiSimulator({ token: GUEST_TOKEN });
  guest.onStop(() => simulator.close());
  await guest.forward(API_PORT, Number(new URL(simulator.url).port));
  return simulator;
}

/** Writes the settings and the token as an installer would, and starts the daemon as the unit does. */
export async function startDaemon(guest: KernelGuest, options: HubOptions): Promise<GuestProcess> {
  // apiTimeout: the daemon and the agent that carries its requests to the host's simulator run on
  // an emulated CPU, ten to twenty-five times slower than a hub: the default 10 s deadline is one
  // second or less of a hub's time there, and was missed in some runs.
  const config = { apiUrl: `http://127.0.0.1:${API_PORT}`, customerId: CUSTOMER_ID, ble: 'on', hciDevice: options.hciDevice, apiTimeout: 60, ...options.settings };
  await guest.check(
    [
      `printf '%s\\n' '${JSON.stringify(config)}' > /etc/panic-pair/config.json`,
      `(umask 077 && printf '%s\\n' '${GUEST_TOKEN}' > /etc/panic-pair/api-token)`,
    ].join(' && '),
  );
  const daemon = guest.start(`exec ${RUN_AS_UNIT}`);
  try {
    await daemon.waitForLine((line) => logEntry(line)?.msg === 'panic-pair daemon started', { what: 'the daemon to start', timeoutMs: 90_000 * guest.architecture.slowness });
  } catch (error) {
    // A store the daemon refuses is shown as it is on disk, for whoever reads the failure.
    const store = await guest.run('ls -la /var/lib/panic-pair; head -c 2000 /var/lib/panic-pair/pairings.json');
    throw new Error(`${(error as Error).message}\nthe state directory:\n${store.stdout}${store.stderr}`);
  }
  return daemon;
}

/** The simulator and the daemon. */
export async function startHub(guest: KernelGuest, options: HubOptions): Promise<KernelHub> {
  const simulator = await startSimulator(guest);
  const daemon = await startDaemon(guest, options);
  return { daemon, simulator, status: () => hubStatus(guest) };
}

// Asked of the guest without starting node: a node process takes 3 to 8 s of the guest's CPU to
// start under TCG (a `panic-pair check` 10 to 16 s), and the suites ask the hub dozens of times.
// socat writes the request line as the CLI does, and keeps its side open (shut-none: the daemon
// takes a client's EOF for its leaving, and cancels a pair) until the daemon answers and closes, or
// -t runs out.

export type HubStatus = Record<string, unknown> & { ble: string; problems: string[] };

/** A shell line that sends `request` to the daemon's control socket and prints every line of its answer. */
export function controlScript(request: Record<string, unknown>, waitSeconds = 60): string {
  return `printf '%s\\n' '${JSON.stringify(request)}' | socat -t ${waitSeconds} - UNIX-CONNECT:${CONTROL_SOCKET},shut-none`;
}

/** The `result` of the daemon's answer (printed by controlScript); throws with its `error`, or with what it said. */
export function controlResult<T>(replies: string): T {
  const frames = replies
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; data?: unknown; kind?: string; message?: string });
  const result = frames.find((reply) => reply.type === 'result');
  if (result !== undefined) return result.data as T;
  const error = frames.find((reply) => reply.type === 'error');
  throw new Error(error === undefined ? `the daemon's control socket answered no result: ${replies.slice(0, 500)}` : `the daemon answered ${error.kind}: ${error.message}`);
}

/** `request`'s result on the daemon's control socket, as the CLI's commands ask it. */
export async function askHub<T>(guest: KernelGuest, request: Record<string, unknown>): Promise<T> {
  return controlResult<T>(await guest.check(controlScript(request)));
}

/**
 * `pair deviceId` asked of the daemon's control socket as the command asks it (a node start is 3 to
 * 8 s of an amd64 guest's CPU, 15 to 25 s of an arm guest's): resolves with the guest process once
 * the daemon waits for the button. Its output ends with the answer, which socketPairOutcome reads.
 */
export async function startSocketPair(guest: KernelGuest, deviceId: string, timeoutMs: number): Promise<GuestProcess> {
  const pair = guest.start(controlScript({ type: 'pair', deviceId, timeoutMs }, Math.ceil(timeoutMs / 1000) + 30));
  await pair.waitForLine((line) => line.text.includes('"step":"waiting"'), { what: `the daemon to wait for ${deviceId}`, timeoutMs });
  return pair;
}

/** The outcome a socket pair (startSocketPair) printed; throws with the daemon's error. */
export function socketPairOutcome(replies: string): { ok: boolean; record: { deviceId: string; state: string } } {
  return controlResult(replies);
}

/**
 * The daemon's status report, asked on its control socket as `panic-pair status --json` asks it
 * and prints it (src/cli/commands/status.ts). Where a test is about the command itself, cliStatus.
 */
export function hubStatus(guest: KernelGuest): Promise<HubStatus> {
  return askHub<HubStatus>(guest, { type: 'status' });
}

/** `panic-pair status --json` in the guest (it exits 1 when degraded). */
export async function cliStatus(guest: KernelGuest): Promise<HubStatus> {
  return JSON.parse(await guest.check('panic-pair status --json || [ $? = 1 ]')) as HubStatus;
}
