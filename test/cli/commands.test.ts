import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlServer, type ControlServer } from '../../src/control/server.js';
import { silentLogger } from '../../src/log/logger.js';
import type { StatusReport } from '../../src/status/status-report.js';
import type { DeviceRow } from '../../src/supervision/types.js';
import { clockWords } from '../../src/supervision/words.js';
import { fakeHandlers, linkedRecord, SAMPLE_DEVICES, sampleStatus } from '../control/fake-daemon.js';
import { assertBuilt, runCli } from './run-cli.js';

// status, devices, scan and forget: the real binary against a control server run by the test.

const NOBODY = 65534;

let dir: string;
let emptyDir: string;
let server: ControlServer;
let healthy = true;
let devices: DeviceRow[] = SAMPLE_DEVICES;
/** What the fake daemon's status says of its radio and broker. */
let sources: Pick<StatusReport, 'ble' | 'mqtt'> = { ble: 'scanning', mqtt: 'connected' };
const scanSeconds: number[] = [];

const run = (...args: string[]) => runCli(args, { runtimeDir: dir });

beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-cli-'));
  emptyDir = await mkdtemp(join(tmpdir(), 'panic-pair-cli-empty-'));
  // Traversable by others, so that an unprivileged user reaches the socket and meets its mode.
  await chmod(dir, 0o755);
  const handlers = fakeHandlers({
    status: () => ({ ...sampleStatus(healthy), ...sources }),
    devices: () => devices,
    scan: async (seconds, signal) => {
      scanSeconds.push(seconds);
      return fakeHandlers().scan(seconds, signal);
    },
  });
  server = await startControlServer({ socketPath: join(dir, 'panic-pair.sock'), handlers, logger: silentLogger() });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(emptyDir, { recursive: true, force: true });
});

describe('--version', () => {
  it("prints the package's version and exits 0, with no daemon needed", async () => {
    const { version } = JSON.parse(await readFile(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], { runtimeDir: emptyDir });
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: `${version}\n` });
    }
  });
});

describe('reaching the daemon', () => {
  it.each(['status', 'devices', 'scan', 'forget A1', 'pair A1'])('%s: exit 7 when no daemon runs', async (command) => {
    const result = await runCli(command.split(' '), { runtimeDir: emptyDir });
    expect(result.code).toBe(7);
    expect(result.stderr).toContain(`no control socket at ${join(emptyDir, 'panic-pair.sock')}`);
    expect(result.stderr).toContain('systemctl start panic-pair');
  });

  it('exit 7 and how to get access when an unprivileged user may not use the socket', async () => {
    const socket = await stat(join(dir, 'panic-pair.sock'));
    expect([socket.uid, socket.mode & 0o777]).toEqual([0, 0o660]);
    const result = await runCli(['status'], { runtimeDir: dir, uid: NOBODY, gid: NOBODY });
    expect(result.code).toBe(7);
    expect(result.stderr).toContain(`permission denied on ${join(dir, 'panic-pair.sock')}`);
    expect(result.stderr).toContain('usermod -aG panic-pair $USER');
  });
});

describe('status', () => {
  it('healthy: one line a fact, exit 0', async () => {
    healthy = true;
    const result = await run('status');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^daemon +running, pid 4242, up 1 h 2 min/m);
    expect(result.stdout).toMatch(/^customer +42$/m);
    expect(result.stdout).toMatch(/^entitlement +entitled/m);
    expect(result.stdout).toMatch(/^MQTT +connected$/m);
    expect(result.stdout).toMatch(/^BLE +scanning; adapter hci0 C4:64:9F:00:00:01, last heard 3 s ago, 0 recoveries$/m);
    expect(result.stdout).toMatch(/^health +healthy$/m);
  });

  it('degraded: the problems listed, exit 1', async () => {
    healthy = false;
    const result = await run('status');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^health +DEGRADED$/m);
    expect(result.stdout).toMatch(/^problem +the API refused the token \(401\)$/m);
    expect(result.stderr).toBe('');
  });

  it('--json prints the report, with the exit code of its health', async () => {
    for (const state of [true, false]) {
      healthy = state;
      const result = await run('status', '--json');
      expect(result.code).toBe(state ? 0 : 1);
      const report = JSON.parse(result.stdout);
      expect(report).toMatchObject({ customerId: 42, healthy: state, mqtt: 'connected', ble: 'scanning' });
      expect(Object.keys(report.counters).sort()).toEqual(['announcements', 'apiErrors', 'batteryDropped', 'dropped', 'forged', 'links', 'plain', 'replayed']);
      expect('entitled' in report).toBe(true);
    }
  });
});

describe('devices', () => {
  it('--json prints the array', async () => {
    devices = SAMPLE_DEVICES;
    const result = await run('devices', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(SAMPLE_DEVICES);
  });

  it('a table, one row a device', async () => {
    devices = SAMPLE_DEVICES;
    const lines = (await run('devices')).stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^DEVICE +STATE +CUSTOMER +SOURCE +LINK +LINKED\/UPDATED +HEARD +BATTERY +REPORTS +ERROR$/);
    expect(lines[1]).toMatch(/^7F3A9C +linked +42 +ble +17 +2025-03-01T10:00:00.000Z +- +- +-$/);
    expect(lines[2]).toMatch(/^B2 +rejected +42 +mqtt +- +2025-03-01T10:05:00.000Z +- +- +- +the API rejected the link/);
  });

  it('says of each linked button when it was heard, whether it is missing, and its battery', async () => {
    const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();
    const missingSince = ago(2 * 3_600_000 + 10 * 60_000 + 20_000);
    const liveness = { battery: null, batteryLow: false, deadlineSeconds: 3600 };
    devices = [
      { ...linkedRecord('A-ONLINE', 1), ...liveness, supervision: 'online', lastHeard: ago(3 * 60_000 + 10_000), battery: 80 },
      { ...linkedRecord('B-MISSING', 2), ...liveness, supervision: 'missing', lastHeard: missingSince, battery: 15, batteryLow: true },
      { ...linkedRecord('C-TRIGGER', 3), ...liveness, supervision: 'unsupervised', lastHeard: null, deadlineSeconds: null },
      { ...linkedRecord('D-UNKNOWN', 4), ...liveness, supervision: 'unknown', lastHeard: null },
    ];
    const text = (await run('devices')).stdout;
    expect(text).toMatch(/^A-ONLINE .* heard 3 min ago +battery 80 % +-$/m);
    const clock = clockWords(Date.parse(missingSince), Date.now());
    expect(text).toMatch(new RegExp(`^B-MISSING .* missing for 2 h 10 min \\(last heard ${clock}\\) +battery 15 % \\(low\\) +-$`, 'm'));
    expect(text).toMatch(/^C-TRIGGER .* not supervised: sends only when pressed +- +-$/m);
    expect(text).toMatch(/^D-UNKNOWN .* unknown: not heard yet since it was linked or the hub started +- +-$/m);
    // Neither radio nor broker works: nothing can hear it, and it says so.
    sources = { ble: 'unavailable', mqtt: 'disconnected' };
    try {
      expect((await run('devices')).stdout).toMatch(/^D-UNKNOWN .* unknown: no working source can hear it +- +-$/m);
    } finally {
      sources = { ble: 'scanning', mqtt: 'connected' };
    }
    expect(JSON.parse((await run('devices', '--json')).stdout)).toEqual(devices);
  });

  it('says of each linked button whether its reports are authenticated', async () => {
    const liveness = { battery: null, batteryLow: false, deadlineSeconds: 3600, supervision: 'online' as const, lastHeard: new Date().toISOString() };
    devices = [
      { ...linkedRecord('E-PLAIN', 5), ...liveness, authenticated: false },
      { ...linkedRecord('F-KEYED', 6), ...liveness, authenticated: true, imitated: false, reports: { verified: 12, forged: 0, replayed: 0, plain: 0 } },
      { ...linkedRecord('G-IMITATED', 7), ...liveness, authenticated: true, imitated: true, reports: { verified: 3, forged: 1, replayed: 2, plain: 0 } },
    ];
    const text = (await run('devices')).stdout;
    expect(text).toMatch(/^E-PLAIN .* +- +not authenticated$/m);
    expect(text).toMatch(/^F-KEYED .* +- +12 verified$/m);
    expect(text).toMatch(/^G-IMITATED .* +- +imitated \(3 verified, 1 forged, 2 replayed\)$/m);
  });

  it('an empty store says so', async () => {
    devices = [];
    const result = await run('devices');
    expect(result.stdout).toBe('no devices paired yet\n');
    expect(JSON.parse((await run('devices', '--json')).stdout)).toEqual([]);
  });
});

describe('scan', () => {
  it('--json prints the array strongest first, after listening 5 s by default', async () => {
    const result = await run('scan', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).map((entry: { deviceId: string }) => entry.deviceId)).toEqual(['NEAR1', 'FAR1', 'MQ1']);
    expect(scanSeconds.at(-1)).toBe(5);
  });

  it('a table with RSSI and paired state; --seconds reaches the daemon', async () => {
    const result = await run('scan', '--seconds', '2');
    expect(scanSeconds.at(-1)).toBe(2);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^DEVICE +SOURCE +RSSI +LAST SEEN +PAIRED$/);
    expect(lines[1]).toMatch(/^NEAR1 +ble +-40 dBm +\d+ s ago +linked$/);
    expect(lines[3]).toMatch(/^MQ1 +mqtt +- +\d+ s ago +not paired$/);
  });

  it('--seconds over a day: exit 2, the daemon not asked', async () => {
    const before = scanSeconds.length;
    const result = await run('scan', '--seconds', '100000');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--seconds must be at most 86400 seconds');
    expect(scanSeconds.length).toBe(before);
  });
});

describe('forget', () => {
  it('a device in the store: "forgot X", exit 0', async () => {
    expect(await run('forget', '7F3A9C')).toMatchObject({ code: 0, stdout: 'forgot 7F3A9C\n' });
  });

  it('a device not in the store: a note, still exit 0', async () => {
    expect(await run('forget', 'ZZZ')).toMatchObject({ code: 0, stdout: 'ZZZ was not in the store\n' });
  });

  it('an invalid deviceId: exit 2', async () => {
    const result = await run('forget', 'a b');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('A-Z a-z 0-9');
  });
});
