import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNotifier, startHeartbeat, STATUS_SETTLE_MS, systemdStatusOf } from '../../src/daemon/sd-notify.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { waitFor } from '../support/wait.js';
import { CUSTOMER_ID, pairWithButton, startDaemon, workspace, type Daemon, type Workspace } from './run-under-systemd.js';
import { listenForNotifications, notifyListenerMissing, type NotifyListener } from './notify-listener.js';

describe('createNotifier', () => {
  const recorder = () => {
    const sent: string[][] = [];
    return { sent, send: async (assignments: readonly string[]) => void sent.push([...assignments]) };
  };

  it('does nothing at all when NOTIFY_SOCKET is unset', async () => {
    const { sent, send } = recorder();
    const notifier = createNotifier({ WATCHDOG_USEC: '30000000' }, { send });
    notifier.ready('up');
    notifier.watchdog();
    notifier.status('x');
    notifier.stopping();
    await notifier.settled();
    expect(notifier.enabled).toBe(false);
    expect(notifier.watchdogIntervalMs()).toBeUndefined();
    expect(sent).toEqual([]);
  });

  it('without NOTIFY_SOCKET, a heartbeat neither pings nor describes the daemon, and keeps no timer', async () => {
    vi.useFakeTimers();
    try {
      const { sent, send } = recorder();
      const notifier = createNotifier({ WATCHDOG_USEC: '30000000' }, { send });
      let described = 0;
      const heartbeat = startHeartbeat(notifier, () => `${(described += 1)} linked`);
      expect(vi.getTimerCount()).toBe(0);
      heartbeat.changed();
      // Past a settle, a watchdog half-period and a status refresh (30 s) several times over.
      await vi.advanceTimersByTimeAsync(120_000);
      await notifier.settled();
      expect(sent).toEqual([]);
      expect(described).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
      heartbeat.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a change is said within STATUS_SETTLE_MS, long before the next ping, and a burst of changes once', async () => {
    vi.useFakeTimers();
    try {
      const { sent, send } = recorder();
      const notifier = createNotifier({ NOTIFY_SOCKET: '@notify', WATCHDOG_USEC: '30000000' }, { send });
      let linked = 0;
      const heartbeat = startHeartbeat(notifier, () => `${linked} linked`);
      linked = 1;
      heartbeat.changed();
      linked = 2;
      heartbeat.changed();
      await vi.advanceTimersByTimeAsync(STATUS_SETTLE_MS);
      await notifier.settled();
      expect(sent).toEqual([['STATUS=2 linked']]);
      await vi.advanceTimersByTimeAsync(15_000 - STATUS_SETTLE_MS);
      await notifier.settled();
      expect(sent).toEqual([['STATUS=2 linked'], ['WATCHDOG=1']]);
      heartbeat.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('pings at half of WATCHDOG_USEC, and only the process WATCHDOG_PID names', () => {
    const env = { NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '30000000' };
    expect(createNotifier(env).watchdogIntervalMs()).toBe(15_000);
    expect(createNotifier({ ...env, WATCHDOG_PID: '4242' }, { pid: 4242 }).watchdogIntervalMs()).toBe(15_000);
    expect(createNotifier({ ...env, WATCHDOG_PID: '4243' }, { pid: 4242 }).watchdogIntervalMs()).toBeUndefined();
    expect(createNotifier({ ...env, WATCHDOG_USEC: 'soon' }).watchdogIntervalMs()).toBeUndefined();
    expect(createNotifier({ NOTIFY_SOCKET: '/run/systemd/notify' }).watchdogIntervalMs()).toBeUndefined();
  });

  it('sends what one tick asks for as one message, a status on one line, and an unchanged status once', async () => {
    const { sent, send } = recorder();
    const notifier = createNotifier({ NOTIFY_SOCKET: '@notify' }, { send });
    notifier.ready('2 linked,\nmqtt connected');
    notifier.watchdog();
    await notifier.settled();
    notifier.status('2 linked, mqtt connected');
    notifier.watchdog();
    await notifier.settled();
    notifier.stopping();
    await notifier.settled();
    expect(sent).toEqual([['READY=1', 'STATUS=2 linked, mqtt connected', 'WATCHDOG=1'], ['WATCHDOG=1'], ['STOPPING=1']]);
  });

  it('reports a failed send and goes on with the next one', async () => {
    const errors: unknown[] = [];
    const sent: string[][] = [];
    let calls = 0;
    const send = async (assignments: readonly string[]) => {
      calls += 1;
      if (calls === 1) throw new Error('no systemd');
      sent.push([...assignments]);
    };
    const notifier = createNotifier({ NOTIFY_SOCKET: '/run/systemd/notify' }, { send, onError: (error) => errors.push(error) });
    notifier.ready();
    await notifier.settled();
    notifier.watchdog();
    await notifier.settled();
    expect(errors).toHaveLength(1);
    expect(sent).toEqual([['WATCHDOG=1']]);
  });

  it('describes the daemon in a few words for systemctl status', () => {
    const report = { devices: { total: 4, linked: 3, linking: 1, rejected: 0, failed: 0 }, mqtt: 'connected', ble: 'off', entitled: true, token: 'accepted' } as const;
    expect(systemdStatusOf(report)).toBe('3 linked, 1 linking, mqtt connected, ble off');
    expect(systemdStatusOf({ ...report, token: 'refused' })).toBe('3 linked, 1 linking, mqtt connected, ble off, API token refused');
    expect(systemdStatusOf({ ...report, entitled: false })).toBe('3 linked, 1 linking, mqtt connected, ble off, customer not entitled');
  });
});

// The real daemon under a stand-in for systemd: its own notify socket, a credentials directory,
// and the state and runtime directories systemd would create.
const missing = notifyListenerMissing();
if (missing !== undefined) process.stderr.write(`skipping the sd_notify daemon tests: ${missing}\n`);

describe.skipIf(missing !== undefined)('the daemon under systemd', () => {
  const TOKEN = 'credential-token-5c1e0a77';
  // Pings every second: systemd would restart a daemon silent for two.
  const WATCHDOG_USEC = 2_000_000;
  let space: Workspace;
  let broker: TestBroker;
  let listener: NotifyListener;
  let daemon: Daemon;
  let stateDir: string;
  let runtimeDir: string;

  beforeAll(async () => {
    assertBuilt();
    space = await workspace(TOKEN);
    broker = await startBroker();
    const credentials = join(space.dir, 'credentials');
    stateDir = join(space.dir, 'state');
    runtimeDir = join(space.dir, 'run');
    for (const dir of [credentials, stateDir, runtimeDir]) await mkdir(dir, { mode: 0o700 });
    await writeFile(join(credentials, 'api-token'), `${TOKEN}\n`, { mode: 0o400 });
    await writeFile(join(space.dir, 'config.json'), '{}\n', { mode: 0o644 });
    listener = await listenForNotifications(join(space.dir, 'notify.sock'));
    daemon = startDaemon({
      PANIC_PAIR_CONFIG: join(space.dir, 'config.json'),
      PANIC_PAIR_API_URL: space.simulator.url,
      PANIC_PAIR_CUSTOMER_ID: String(CUSTOMER_ID),
      PANIC_PAIR_MQTT_URL: broker.url,
      PANIC_PAIR_BLE: 'off',
      CREDENTIALS_DIRECTORY: credentials,
      STATE_DIRECTORY: stateDir,
      RUNTIME_DIRECTORY: runtimeDir,
      NOTIFY_SOCKET: listener.path,
      WATCHDOG_USEC: String(WATCHDOG_USEC),
    });
  });

  afterAll(async () => {
    await daemon?.stop();
    await listener?.close();
    await broker?.stop();
    await space?.close();
  });

  it('says READY=1 once, after the control socket listens, with a short status', async () => {
    const socketAtReady = await waitFor(
      () => {
        if (daemon.child.exitCode !== null) throw new Error(`the daemon exited: ${daemon.stderr()}`);
        return listener.with('READY').length > 0 ? { exists: existsSync(join(runtimeDir, 'panic-pair.sock')) } : undefined;
      },
      { what: 'READY=1', timeoutMs: 20_000 },
    );
    expect(socketAtReady.exists).toBe(true);
    const [ready, ...more] = listener.with('READY');
    expect(more).toEqual([]);
    expect(ready?.fields).toMatchObject({ READY: '1', STATUS: expect.stringMatching(/^0 linked, mqtt \w+, ble off/) });
  });

  it('pings the watchdog at half of WATCHDOG_USEC', async () => {
    const readyAt = listener.with('READY')[0]?.at ?? 0;
    const pings = await waitFor(() => {
      const after = listener.with('WATCHDOG').filter((ping) => ping.at >= readyAt);
      return after.length >= 6 ? after.slice(0, 6) : undefined;
    }, { what: 'six watchdog pings', timeoutMs: 30_000 });
    const gaps = pings.slice(1).map((ping, i) => ping.at - (pings[i]?.at ?? 0));
    // systemd needs one ping per WATCHDOG_USEC; pings at a flood's pace would be a bug too.
    expect(Math.max(...gaps)).toBeLessThan(WATCHDOG_USEC / 1000);
    expect(Math.min(...gaps)).toBeGreaterThan(WATCHDOG_USEC / 1000 / 8);
  });

  it('takes the token from CREDENTIALS_DIRECTORY and keeps the store in STATE_DIRECTORY', async () => {
    const result = await pairWithButton(broker.url, runtimeDir, 'CRED01');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const store = JSON.parse(await readFile(join(stateDir, 'pairings.json'), 'utf8')) as unknown;
    expect(JSON.stringify(store)).toContain('CRED01');
    const status = JSON.parse((await runCli(['status', '--json'], { runtimeDir })).stdout) as { token: string };
    expect(status.token).toBe('accepted');
    // The status follows the link (within STATUS_SETTLE_MS).
    await waitFor(() => listener.with('STATUS').some((message) => message.fields.STATUS?.startsWith('1 linked')), {
      what: 'STATUS=1 linked',
      timeoutMs: 10_000,
    });
  });

  it('says STOPPING=1 on SIGTERM and exits 0', async () => {
    expect(listener.with('STOPPING')).toEqual([]);
    const code = await daemon.stop();
    expect(code).toBe(0);
    await waitFor(() => listener.with('STOPPING').length === 1, { what: 'STOPPING=1' });
  });
});
