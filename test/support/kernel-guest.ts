import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { setPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { niced, tryLock } from './checkout-package.js';
import { cachedRoot, lastLines } from './container-root.js';
import { Agent, connectAgent } from './guest-agent.js';
import { GUEST_ARCHITECTURES, type DebianArchitecture, type GuestArchitecture } from './guest-architecture.js';
import { findExecutable } from './installed.js';
import { GUEST_DIR, kernelImage } from './kernel-image.js';
import { waitFor } from './wait.js';

// A real Linux kernel with its Bluetooth stack, for the tests of BLE through HCI sockets:
// Debian 13's own kernel for amd64, arm64 or armhf (guest-architecture.ts) booted
// under qemu (TCG: KVM fails on these machines) on a root made once by mmdebstrap and cached
// (container-root.ts; an arm root is made under qemu-user). The root holds the kernel and its
// modules (bluetooth, hci_vhci on amd64, hci_uart), nodejs, BlueZ and its test tools (btvirt makes
// emulated LE controllers that hear each other), socat. The run makes one ext4 image of it for
// each architecture, with the project's .deb for that architecture installed by dpkg
// (kernel-image.ts), and every guest boots it with writes of its own that vanish at its end. No
// init system: guest-init.sh mounts what is needed, loads the Bluetooth modules and starts agent.mjs, which runs the host's shell commands over a virtio port and sends
// back every line they print, stamped with the guest's monotonic clock. The guest has no network
// card: the agent also carries connections to the guest's loopback to a service on the host's (the
// API simulator, kernel-hub.ts).
//
//   const guest = await bootKernelGuestOrReason({ deb, architecture: 'arm64' });   // a string: skip, saying it
//   await guest.check('btvirt ...');  const daemon = guest.start('panic-pair run');
//   await daemon.waitForLine((line) => ..., { what: 'scanning' });  await guest.stop();

/** A line a guest command printed, with the guest's monotonic time (ms) when the agent read it. */
export interface GuestLine {
  stream: 'out' | 'err';
  text: string;
  t: number;
}

export interface GuestExit {
  code: number | null;
  signal: string | null;
  /** Guest monotonic time (ms) of the exit. */
  t: number;
  stdout: string;
  stderr: string;
}

export interface GuestProcess {
  /** Every line so far, in order. */
  readonly lines: readonly GuestLine[];
  /** The first line (stamped at or after `after`, guest ms) that `match` accepts, now or when it comes. */
  waitForLine(match: (line: GuestLine) => boolean, options?: { after?: number; timeoutMs?: number; what?: string }): Promise<GuestLine>;
  readonly exited: Promise<GuestExit>;
  /** Signals the command's process group. */
  signal(name: NodeJS.Signals): void;
}

export interface KernelGuest {
  readonly architecture: GuestArchitecture;
  /** Seconds from starting qemu to the agent's first word. */
  readonly bootSeconds: number;
  /** Seconds the booted guest then waited for a slot (GUEST_SLOTS), having booted at the lowest priority. */
  readonly slotWaitSeconds: number;
  /** Runs `sh -c script` as root in the guest and waits for it to exit. */
  run(script: string, options?: { timeoutMs?: number }): Promise<GuestExit>;
  /** As run(), but throws with its output unless it exits 0; resolves with stdout. */
  check(script: string, options?: { timeoutMs?: number }): Promise<string>;
  /** Starts `sh -c script` in the guest and returns at once. */
  start(script: string): GuestProcess;
  /** The guest's monotonic clock now (ms), asked of the guest. */
  clock(): Promise<number>;
  /** The host's 127.0.0.1:`hostPort` on the guest's 127.0.0.1:`guestPort`, carried by the agent. */
  forward(guestPort: number, hostPort: number): Promise<void>;
  /** `dispose` runs when the guest stops (a host-side service it used). */
  onStop(dispose: () => Promise<void> | void): void;
  /** Powers the guest off and removes its image. */
  stop(): Promise<void>;
}

const TOOLS = ['mmdebstrap', 'mke2fs', 'chroot', 'cp'];
/** Long: a guest that boots slowly on a busy machine is waited for, not skipped. */
const BOOT_TIMEOUT_MS = 600_000;
/** A command's own deadline in the amd64 guest; scaled by the architecture's slowness. */
const RUN_TIMEOUT_MS = 120_000;

/** Why no guest of `architecture` can boot here, or undefined when one may; nothing is started to find out. */
export function kernelGuestUnavailable(architecture: DebianArchitecture = 'amd64'): string | undefined {
  const machine = GUEST_ARCHITECTURES[architecture];
  if (process.platform !== 'linux' || process.arch !== 'x64') return `the kernel guest needs x86-64 Linux (this is ${process.platform} ${process.arch})`;
  if (process.getuid?.() !== 0) return 'mmdebstrap and dpkg in the guest root need root';
  const missing = [machine.qemu, ...TOOLS, ...(machine.binfmt === undefined ? [] : ['arch-test'])].filter((tool) => findExecutable(tool) === undefined);
  if (missing.length > 0) return `not installed: ${missing.join(', ')} (apt-get install ${machine.qemuPackage} mmdebstrap e2fsprogs${machine.binfmt === undefined ? '' : ' arch-test qemu-user-static binfmt-support'})`;
  // dpkg in an arm root runs its maintainer scripts under qemu-user, which the kernel finds by binfmt_misc.
  if (machine.binfmt !== undefined && !binfmtEnabled(machine.binfmt)) return `${machine.binfmt} is not enabled in binfmt_misc (update-binfmts --enable ${machine.binfmt})`;
  const chosen = process.env.PANIC_PAIR_TEST_KERNEL;
  if (chosen === 'off') return 'PANIC_PAIR_TEST_KERNEL=off';
  // A list of architectures runs those guests only, e.g. PANIC_PAIR_TEST_KERNEL=amd64,arm64.
  if (chosen !== undefined && chosen !== '' && !chosen.split(',').includes(architecture)) return `PANIC_PAIR_TEST_KERNEL=${chosen} leaves out ${architecture}`;
  return undefined;
}

function binfmtEnabled(name: string): boolean {
  try {
    return readFileSync(path.join('/proc/sys/fs/binfmt_misc', name), 'utf8').startsWith('enabled');
  } catch {
    return false;
  }
}

/**
 * Boots a guest of `architecture` (amd64 unless named) with `deb` installed, or says why none can
 * boot here (a tool missing): a suite skips with that reason. Where the tools are, a root that
 * cannot be made or a guest that does not boot throws: the suite fails, it is never skipped.
 */
export async function bootKernelGuestOrReason(options: { deb?: string; architecture?: DebianArchitecture } = {}): Promise<KernelGuest | string> {
  const architecture = options.architecture ?? 'amd64';
  const unavailable = kernelGuestUnavailable(architecture);
  if (unavailable !== undefined) return unavailable;
  const machine = GUEST_ARCHITECTURES[architecture];
  const root = await cachedRoot(machine.recipe, { everyRoot: true });
  try {
    return await boot(machine, root, options.deb);
  } catch (error) {
    // Once: a kernel that died before the agent's first word ran nothing of the package's yet. A
    // warm run at 7aef3bf saw one such panic in about a hundred boots, inside the kernel's own
    // start (a general protection fault in its slab allocator, 0.8 s into the boot, under TCG).
    if (!(error instanceof BootDied)) throw error;
    process.stderr.write(`the ${architecture} guest's kernel died before its agent spoke; booting it again:\n${error.message}\n`);
    return boot(machine, root, options.deb);
  }
}

/** The guest's qemu exited before its agent's first word: nothing of the package's had run. */
class BootDied extends Error {}

/**
 * Guests whose suites run their rows at once: one a core. A guest under TCG keeps its core busy,
 * and a third beside them made every guest slower than its daemon's deadlines allow. A further
 * suite's guest boots meanwhile at the lowest priority, in the time the two leave idle (a deadline
 * waited for, a suite's last rows alone), then waits for the first slot freed; from then it runs as
 * the others do. The slots are lock directories, shared by the run's kernel workers.
 */
const GUEST_SLOTS = 2;

/** A slot taken now, or undefined when all are held; the function releases it. */
function tryGuestSlot(): (() => void) | undefined {
  for (let index = 0; index < GUEST_SLOTS; index++) {
    const lock = path.join(tmpdir(), `panic-pair-guest-slot-${index}.lock`);
    if (tryLock(lock)) return () => rmSync(lock, { recursive: true, force: true });
  }
  return undefined;
}

/** The first slot freed; undefined once `given up` says the guest is gone. */
async function guestSlot(givenUp: () => boolean): Promise<(() => void) | undefined> {
  while (!givenUp()) {
    const release = tryGuestSlot();
    if (release !== undefined) return release;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return undefined;
}

/** Every thread of process `pid` at `priority` (a nice value), as a slot lets a guest booted at the lowest run as the others. */
function prioritise(pid: number, priority: number): void {
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      setPriority(Number(task), priority);
    } catch {
      // A thread that ended meanwhile.
    }
  }
}

const live = new Set<() => void>();
process.once('exit', () => {
  for (const emergency of live) emergency();
});

async function boot(machine: GuestArchitecture, root: string, deb: string | undefined): Promise<KernelGuest> {
  const runTimeoutMs = RUN_TIMEOUT_MS * machine.slowness;
  const scratch = await mkdtemp(path.join('/var/tmp', 'panic-pair-ble-kernel-'));
  let qemu: ChildProcess | undefined;
  let release = tryGuestSlot();
  let stopped = false;
  let agentSpoke = false;
  const freeSlot = (): void => {
    stopped = true;
    release?.();
    release = undefined;
  };
  const emergency = (): void => {
    if (qemu?.pid !== undefined && qemu.exitCode === null) qemu.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
    freeSlot();
  };
  live.add(emergency);
  try {
    const image = await kernelImage(root, deb);
    const boot = path.join(root, 'boot');
    const kernel = newestIn(boot, 'vmlinuz-');
    const initrd = newestIn(boot, 'initrd.img-');
    const socketPath = path.join(scratch, 'agent.sock');
    const started = performance.now();
    const lowest = release === undefined;
    const qemuLine = [
      machine.qemu,
      ...machine.machine,
      ...['-accel', 'tcg', '-m', String(machine.memoryMb), '-smp', String(machine.cpus), '-nographic', '-no-reboot', '-nic', 'none'],
      ...['-kernel', kernel, '-initrd', initrd],
      // mitigations=off: the retpolines and barriers against speculation, which emulated code pays
      // for at every call; a node start took 3.8 s in place of 4.8 s without them.
      ...['-append', `root=/dev/vda rw console=${machine.console} loglevel=3 panic=-1 mitigations=off init=/${GUEST_DIR}/guest-init.sh`],
      // The run's image, shared: this guest's writes go to a temporary file of its qemu's own.
      ...['-drive', `file=${image},format=raw,if=virtio,snapshot=on`],
      ...['-device', 'virtio-serial', '-chardev', `socket,id=agent,path=${socketPath},server=on,wait=on`, '-device', 'virtserialport,chardev=agent,name=agent'],
    ];
    const [command, ...args] = lowest ? niced(qemuLine) : qemuLine;
    const child = spawn(
      command!,
      args,
      // snapshot=on's temporary file in the scratch folder: removed with it, even after a SIGKILL.
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: scratch } },
    );
    qemu = child;
    let console = '';
    const collect = (chunk: Buffer): void => void (console = (console + chunk.toString()).slice(-20_000));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    // qemu that cannot be started at all says so here, not as an uncaught error.
    let spawnError: Error | undefined;
    child.once('error', (error) => (spawnError = error));
    const gone = (): boolean => spawnError !== undefined || child.exitCode !== null || child.signalCode !== null;
    const bootFailed = (): Error =>
      new Error(spawnError !== undefined ? `${machine.qemu} did not start: ${spawnError.message}` : `qemu exited ${child.exitCode ?? child.signalCode}: ${lastLines(console, 40)}`);
    await waitFor(() => gone() || existsSync(socketPath), { timeoutMs: BOOT_TIMEOUT_MS, intervalMs: 100, what: 'qemu to make its agent socket' });
    if (gone()) throw bootFailed();
    // Booted at the lowest priority: at its normal one from the moment a slot frees, booted or not
    // (qemu made its socket: `nice` has run it).
    const slotted = (release !== undefined
      ? Promise.resolve()
      : guestSlot(() => stopped || gone()).then((taken) => {
          if (stopped) return taken?.();
          release = taken;
          if (child.pid !== undefined && !gone()) prioritise(child.pid, 0);
        })
    ).then(() => performance.now());
    // qemu (wait=on) starts the guest only once this connects: a failed connect must not leave it waiting.
    const connection = await connectAgent(socketPath, gone, BOOT_TIMEOUT_MS);
    const agent = new Agent(connection);
    // A guest that dies (a kernel panic, PID 1 gone) fails every command still waiting, with its console.
    child.once('exit', () => agent.lost(bootFailed()));
    // The boot's own time counts from then: a boot at the lowest priority may wait on a busy machine.
    const ready = await Promise.race([
      agent.ready,
      new Promise<never>((_, reject) => child.once('exit', () => reject(bootFailed()))),
      new Promise<never>((_, reject) => void slotted.then(() => setTimeout(() => reject(new Error(`no word from the guest in ${BOOT_TIMEOUT_MS / 1000} s: ${lastLines(console, 40)}`)), BOOT_TIMEOUT_MS).unref())),
    ]);
    void ready;
    agentSpoke = true;
    const bootSeconds = (performance.now() - started) / 1000;
    const slotAt = await slotted;
    if (gone()) throw bootFailed();
    const slotWaitSeconds = lowest ? Math.max(0, (slotAt - started) / 1000 - bootSeconds) : 0;
    const disposals: Array<() => Promise<void> | void> = [];
    return {
      architecture: machine,
      bootSeconds,
      slotWaitSeconds,
      run: (script, runOptions) => agent.start(script).finished(runOptions?.timeoutMs ?? runTimeoutMs, script),
      async check(script, runOptions) {
        const result = await agent.start(script).finished(runOptions?.timeoutMs ?? runTimeoutMs, script);
        if (result.code !== 0) throw new Error(`\`${script}\` exited ${result.code ?? result.signal} in the guest:\n${lastLines(`${result.stdout}\n${result.stderr}`, 20)}`);
        return result.stdout;
      },
      start: (script) => agent.start(script),
      async clock() {
        return (await agent.start('true').finished(runTimeoutMs, 'true')).t;
      },
      forward: (guestPort, hostPort) => agent.forward(guestPort, hostPort),
      onStop: (dispose) => void disposals.push(dispose),
      async stop() {
        connection.destroy();
        for (const dispose of disposals.splice(0)) await dispose();
        if (!gone()) {
          child.kill('SIGTERM');
          await new Promise((resolve) => child.once('exit', resolve));
        }
        live.delete(emergency);
        await rm(scratch, { recursive: true, force: true });
        freeSlot();
      },
    };
  } catch (error) {
    const died = qemu !== undefined && !agentSpoke && (qemu.exitCode !== null || qemu.signalCode !== null);
    emergency();
    live.delete(emergency);
    throw died ? new BootDied((error as Error).message) : error;
  }
}

function newestIn(dir: string, prefix: string): string {
  const name = readdirSync(dir)
    .filter((entry) => entry.startsWith(prefix))
    .sort()
    .at(-1);
  if (name === undefined) throw new Error(`no ${prefix}* in ${dir}`);
  return path.join(dir, name);
}
