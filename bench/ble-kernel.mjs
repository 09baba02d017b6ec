// BLE through a real kernel: Debian 13's kernel under qemu (TCG), BlueZ's btvirt making
// the hub's adapter (hci0) and four button controllers, the package's daemon run as its unit runs it
// (test/support/kernel-guest.ts, kernel-hub.ts). Three figures:
//   1. CPU per advertisement of the daemon against bare noble scanning the same adapter at the same
//      time (so both receive the very same reports), at several hundred advertisements a second
//      from 200 virtual buttons: utime+stime from /proc/<pid>/stat over a window, divided by the
//      reports each counted. Goal <= 1.2.
//   2. Time from the adapter's return to the daemon's `scanning`, for each row of the radio's
//      failure table (docs/engineer/radio.md) that has one, and for the rows where it stays `scanning` (another program's reset or scan stop)
//      the time until a button advertised right after is heard (median of a few rounds, on the
//      guest's clock).
//   3. Time from a button's first advertisement to `linked` (the daemon's log line), through the kernel.
// Everything runs ~10x slower under TCG than on hardware; the ratio is what carries over.
// Needs root, qemu-system-x86_64, mmdebstrap and mke2fs; opt-in in `npm run bench` (BENCH_KERNEL=1).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { median, report, ROOT } from './lib/harness.mjs';

const RATE = Number(process.env.BENCH_KERNEL_RATE ?? 400);
const WINDOW_S = Number(process.env.BENCH_KERNEL_WINDOW ?? 20);
const ROUNDS = Number(process.env.BENCH_KERNEL_ROUNDS ?? 3);
const BUTTON_CONTROLLERS = [1, 2, 3, 4];
const GUEST_DIR = '/usr/local/lib/panic-pair-test';

// The test support is TypeScript: bundled here for this run, its own files found where they are.
const bundle = path.join(os.tmpdir(), `panic-pair-bench-kernel-${process.pid}.mjs`);
await build({
  stdin: { contents: "export * from './kernel-guest.ts'; export * from './kernel-hub.ts';", resolveDir: path.join(ROOT, 'test', 'support'), loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  define: {
    'import.meta.dirname': JSON.stringify(path.join(ROOT, 'test', 'support')),
    'import.meta.url': JSON.stringify(pathToFileURL(path.join(ROOT, 'test', 'support', 'kernel-hub.ts')).href),
  },
  logLevel: 'warning',
});
const kernel = await import(bundle);
rmSync(bundle, { force: true });

function skip(reason) {
  process.stderr.write(`ble-kernel: skipped: ${reason}\n`);
  report({ figure: 'kernel BLE: daemon CPU per advertisement vs bare noble', ratio: Number.NaN, detail: `skipped: ${reason}` });
  process.exit(0);
}

const unavailable = kernel.kernelGuestUnavailable();
if (unavailable !== undefined) skip(unavailable);
execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
const built = await kernel.buildDeb();
if (typeof built === 'string') skip(built);
const guest = await kernel.bootKernelGuestOrReason({ deb: built.deb });
if (typeof guest === 'string') skip(guest);
process.stderr.write(`kernel guest booted in ${guest.bootSeconds.toFixed(1)} s\n`);

const seconds = (ms) => Number((ms / 1000).toFixed(2));
const ticks = async (pid) => {
  const fields = (await guest.check(`cat /proc/${pid}/stat`)).split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
};
const lineWith = (process, text, after) => process.waitForLine((line) => line.text.startsWith(text), { after, timeoutMs: 60_000, what: text });

try {
  let controllers = guest.start(`exec btvirt -L -l${BUTTON_CONTROLLERS.length + 1}`);
  await guest.check(`until [ -e /sys/class/bluetooth/hci${BUTTON_CONTROLLERS.length} ]; do sleep 0.05; done; for i in 0 ${BUTTON_CONTROLLERS.join(' ')}; do true | btmgmt --index $i power on >/dev/null; done`);
  const hub = await kernel.startHub(guest, { hciDevice: 0 });
  // A daemon that dies under the flood: what it said last.
  hub.daemon.exited.then((exit) => process.stderr.write(`the daemon exited (${exit.code ?? exit.signal}); its last lines:\n${hub.daemon.lines.slice(-30).map((line) => line.text).join('\n')}\n`), () => undefined);
  const scanning = await hub.daemon.waitForLine(kernel.bleStateIs('scanning'), { timeoutMs: 60_000, what: 'scanning' });
  const daemonPid = kernel.logEntry(scanning).pid;

  // 3. First advertisement to linked.
  const toLinked = [];
  for (let round = 0; round < ROUNDS; round++) {
    const deviceId = `LAT${round}`;
    const pair = guest.start(`panic-pair pair ${deviceId} --timeout 60`);
    await lineWith(pair, 'Waiting for button');
    const advertised = guest.start(`${kernel.advertiseScript(1, deviceId)} >/dev/null; echo advertised`);
    const at = (await lineWith(advertised, 'advertised')).t;
    const linked = await hub.daemon.waitForLine((line) => kernel.logEntry(line)?.state === 'linked' && kernel.logEntry(line)?.deviceId === deviceId, { timeoutMs: 60_000, what: 'linked' });
    await pair.exited;
    toLinked.push(linked.t - at);
  }
  // The kernel's advertising instance goes, so that only the flood's raw commands advertise.
  await guest.check('true | btmgmt --index 1 clr-adv >/dev/null || true');

  // 1. CPU per advertisement, both scanners hearing the same flood.
  const bare = guest.start(`NOBLE_HCI_DEVICE_ID=0 exec node ${GUEST_DIR}/bare-noble.cjs`);
  const barePid = Number((await lineWith(bare, 'scanning')).text.split(' ')[1]);
  // Counted with the flood stopped at both ends, so that every report falls inside the window of
  // both counts (a status request takes seconds under TCG).
  const count = async () => {
    const t = await guest.clock();
    bare.signal('SIGUSR1');
    const heard = Number((await lineWith(bare, 'heard', t)).text.split(' ')[1]);
    const status = await kernel.hubStatus(guest);
    return { t, heard, announcements: status.counters.announcements, daemonTicks: await ticks(daemonPid), bareTicks: await ticks(barePid) };
  };
  const start = await count();
  const flood = guest.start(`exec node ${GUEST_DIR}/adv-flood.cjs ${RATE} ${BUTTON_CONTROLLERS.join(' ')}`);
  const floodStarted = (await lineWith(flood, 'flooding')).t;
  await guest.check(`sleep ${WINDOW_S}`);
  const floodEnded = await guest.clock();
  flood.signal('SIGUSR1');
  const sent = Number((await lineWith(flood, 'sent', floodEnded)).text.split(' ')[1]);
  flood.signal('SIGTERM');
  await flood.exited;
  await guest.check('sleep 5'); // what is queued is read
  const end = await count();
  bare.signal('SIGTERM');
  const floodS = (floodEnded - floodStarted) / 1000;
  const daemonReports = end.announcements - start.announcements;
  const bareReports = end.heard - start.heard;
  const daemonMsPer = ((end.daemonTicks - start.daemonTicks) * 10) / daemonReports;
  const bareMsPer = ((end.bareTicks - start.bareTicks) * 10) / bareReports;
  report({
    figure: 'kernel BLE: daemon CPU per advertisement vs bare noble',
    ratio: daemonMsPer / bareMsPer,
    target: { op: '<=', value: 1.2 },
    detail: {
      advertisementsPerSecond: Math.round(bareReports / floodS),
      sentPerSecond: Math.round(sent / floodS),
      daemonReports,
      bareReports,
      daemonCpuMsPerAdvertisement: Number(daemonMsPer.toFixed(3)),
      bareNobleCpuMsPerAdvertisement: Number(bareMsPer.toFixed(3)),
      floodSeconds: seconds(floodEnded - floodStarted),
    },
  });
  await bare.exited;

  // 2. Adapter back to scanning, per row.
  const rows = {};
  const timeRow = async (name, disrupt, disruptedState, restore) => {
    const times = [];
    let said = '';
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const before = await guest.clock();
        said = (await disrupt()) ?? '';
        await hub.daemon.waitForLine(kernel.bleStateIs(disruptedState), { after: before, timeoutMs: 30_000, what: disruptedState });
        const back = await restore();
        const again = await hub.daemon.waitForLine(kernel.bleStateIs('scanning'), { after: back, timeoutMs: 30_000, what: 'scanning' });
        times.push(again.t - back);
      }
      rows[name] = { medianSeconds: seconds(median(times)), seconds: times.map(seconds) };
    } catch (error) {
      process.stderr.write(`${name}: ${error.message}\n(the command that disrupted it said: ${said.trim()})\n`);
      await restore();
      rows[name] = { medianSeconds: null, failed: error.message.split('\n')[0], said: said.trim() };
    }
  };
  const marked = async (script) => (await lineWith(guest.start(`${script} >/dev/null; echo back`), 'back')).t;
  // Rows where the state stays `scanning`: from another program's command to a button, advertised
  // right after it, being heard (pair's next line).
  const timeHeard = async (name, prefix, command) => {
    const times = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const deviceId = `${prefix}${round}`;
        const pair = guest.start(`panic-pair pair ${deviceId} --timeout 30`);
        await lineWith(pair, 'Waiting for button');
        const done = guest.start(`${command} >/dev/null; echo done; ${kernel.advertiseScript(1, deviceId)} >/dev/null`);
        const at = (await lineWith(done, 'done')).t;
        const heard = await pair.waitForLine((line) => /^(Checking|Linking|✔ Linked)/.test(line.text), { timeoutMs: 40_000, what: `${deviceId} heard` });
        await pair.exited;
        times.push(heard.t - at);
      }
      rows[name] = { medianSeconds: seconds(median(times)), seconds: times.map(seconds) };
    } catch (error) {
      process.stderr.write(`${name}: ${error.message}\n`);
      rows[name] = { medianSeconds: null, failed: error.message.split('\n')[0] };
    }
  };
  await timeRow('powered off, then on', () => guest.check('true | btmgmt --index 0 power off'), 'powered-off', () => marked('true | btmgmt --index 0 power on'));
  await timeRow('rfkill block, then unblock', () => guest.check('rfkill block bluetooth'), 'blocked', () => marked('rfkill unblock bluetooth'));
  await timeRow(
    'removed, then back',
    async () => {
      controllers.signal('SIGTERM');
      await controllers.exited;
    },
    'unavailable',
    async () => {
      controllers = guest.start(`echo back; exec btvirt -L -l${BUTTON_CONTROLLERS.length + 1}`);
      return (await lineWith(controllers, 'back')).t;
    },
  );
  await timeHeard('another program resets the controller', 'RS', 'hcitool -i hci0 cmd 0x03 0x0003');
  await timeHeard('another program stops the scan', 'ST', 'hcitool -i hci0 cmd 0x08 0x000c 00 00');
  report({
    figure: 'kernel BLE: adapter back to scanning (s, slowest row\'s median)',
    ratio: Math.max(...Object.values(rows).map((row) => row.medianSeconds ?? Number.NaN)),
    detail: rows,
  });
  report({
    figure: 'kernel BLE: first advertisement to linked (s, median)',
    ratio: seconds(median(toLinked)),
    detail: { seconds: toLinked.map(seconds), bootSeconds: seconds(guest.bootSeconds * 1000) },
  });
} catch (error) {
  // What was left of the daemon's files and processes when the bench failed.
  const left = await guest.run('ls -la /run/panic-pair /var/lib/panic-pair; for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline 2>/dev/null; echo; done | grep -a panic-pair');
  process.stderr.write(`when it failed:\n${left.stdout}${left.stderr}\n`);
  throw error;
} finally {
  await guest.stop();
  built.dispose();
}
