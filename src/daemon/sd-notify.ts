import { execFile } from 'node:child_process';
import type { StatusReport } from '../status/status-report.js';

// sd_notify(3) for `Type=notify`: READY=1, WATCHDOG=1, STOPPING=1 and STATUS= to systemd.
//
// Why a child process. The protocol is one datagram on the AF_UNIX socket NOTIFY_SOCKET names,
// and Node has no unix datagram sockets (dgram speaks UDP, net speaks streams). The packages that
// add them are native: `sd-notify` and `unix-dgram` compile with node-gyp on the hub (a compiler,
// and for sd-notify the libsystemd headers, on every Raspberry Pi); `node-unix-socket` ships
// prebuilt arm64 and armhf binaries but would be the one native module on the start-up path.
// systemd-notify(1) comes with systemd itself, so wherever NOTIFY_SOCKET is set it is there.
// The price: systemd sees each message come from the child, not the main PID, so the unit says
// NotifyAccess=all; systemd-notify waits (BARRIER=1) until systemd has read the message, so it is
// still alive, and counted as the unit's, when systemd looks at its sender. A ping costs one fork
// and exec every WatchdogSec/2. Swapping in an in-process sender later touches only `send`.

/** Sends one notification made of these `NAME=value` assignments. */
export type NotifySend = (assignments: readonly string[]) => Promise<void>;

export interface Notifier {
  /** False when NOTIFY_SOCKET is unset: every call below then does nothing. */
  readonly enabled: boolean;
  /** READY=1: the store is loaded, the sources started and the control socket listens. */
  ready(status?: string): void;
  /** WATCHDOG=1; call it from a timer on the event loop, so that a stuck loop misses it. */
  watchdog(): void;
  /** STOPPING=1, at the start of shutdown. */
  stopping(): void;
  /** STATUS=, one short line for `systemctl status`; an unchanged text is not sent again. */
  status(text: string): void;
  /** Half of WATCHDOG_USEC when systemd asks this process for pings, in milliseconds. */
  watchdogIntervalMs(): number | undefined;
  /** Resolves once everything handed over so far was sent or failed. */
  settled(): Promise<void>;
}

export interface NotifierOptions {
  /** How a notification leaves; systemd-notify by default. */
  send?: NotifySend;
  /** A notification that could not be sent; it is not retried (the next ping is a retry). */
  onError?: (error: unknown) => void;
  /** This process's PID, compared with WATCHDOG_PID. */
  pid?: number;
}

const SEND_TIMEOUT_MS = 10_000;
const MAX_STATUS_CHARS = 200;

export function createNotifier(env: NodeJS.ProcessEnv, options: NotifierOptions = {}): Notifier {
  const socket = env.NOTIFY_SOCKET?.trim() || undefined;
  const send = options.send ?? (socket === undefined ? async () => undefined : systemdNotify(socket, env.PATH));
  const onError = options.onError ?? (() => undefined);
  const watchdogMs = socket === undefined ? undefined : watchdogIntervalOf(env, options.pid ?? process.pid);
  // Assignments wait here while a send is under way, and go together in the next message: a slow
  // systemd never makes pings pile up, and a ping and a status of the same tick cost one process.
  let pending = new Map<string, string>();
  let sending: Promise<void> | undefined;
  let lastStatus: string | undefined;

  const pump = async (): Promise<void> => {
    await Promise.resolve(); // let the calls of this tick join the message
    while (pending.size > 0) {
      const batch = [...pending].map(([name, value]) => `${name}=${value}`);
      pending = new Map();
      try {
        await send(batch);
      } catch (error) {
        onError(error);
      }
    }
    sending = undefined;
  };
  const put = (name: string, value: string): void => {
    if (socket === undefined) return;
    pending.set(name, value);
    sending ??= pump();
  };
  const status = (text: string): void => {
    const line = oneLine(text);
    if (line === lastStatus) return;
    lastStatus = line;
    put('STATUS', line);
  };

  return {
    enabled: socket !== undefined,
    ready(text) {
      put('READY', '1');
      if (text !== undefined) status(text);
    },
    watchdog: () => put('WATCHDOG', '1'),
    stopping: () => put('STOPPING', '1'),
    status,
    watchdogIntervalMs: () => watchdogMs,
    settled: () => sending ?? Promise.resolve(),
  };
}

/** sd_watchdog_enabled(3): WATCHDOG_USEC, for this process when WATCHDOG_PID says so. */
function watchdogIntervalOf(env: NodeJS.ProcessEnv, pid: number): number | undefined {
  const usec = Number(env.WATCHDOG_USEC);
  if (!Number.isSafeInteger(usec) || usec <= 0) return undefined;
  const forPid = env.WATCHDOG_PID?.trim();
  if (forPid && Number(forPid) !== pid) return undefined;
  return Math.max(1, Math.floor(usec / 2000));
}

/** A newline would start another assignment. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').trim().slice(0, MAX_STATUS_CHARS);
}

function systemdNotify(socket: string, path: string | undefined): NotifySend {
  // Only what systemd-notify needs: the socket, and where to find the program.
  const env = { NOTIFY_SOCKET: socket, PATH: path ?? '/usr/bin:/bin' };
  return (assignments) =>
    new Promise((resolve, reject) => {
      execFile('systemd-notify', [...assignments], { env, timeout: SEND_TIMEOUT_MS }, (error, _stdout, stderr) => {
        if (error === null) return resolve();
        const code = (error as NodeJS.ErrnoException).code;
        const why = code === 'ENOENT' ? 'systemd-notify is not installed' : stderr.trim() || error.message;
        reject(new Error(`cannot notify systemd (${assignments.join(' ')}): ${why}`));
      });
    });
}

/** How long a change waits for the ones that follow it before STATUS= says them all (one process). */
export const STATUS_SETTLE_MS = 1_000;

export interface Heartbeat {
  /** Something `describe` reads has changed (a link made): STATUS= follows within STATUS_SETTLE_MS. */
  changed(): void;
  stop(): void;
}

/**
 * Pings the watchdog at half of WATCHDOG_USEC from a timer on the event loop, so a loop stuck for
 * longer than WatchdogSec gets the daemon restarted, and refreshes STATUS= at the same pace; a
 * change refreshes it sooner, bursts of changes once.
 */
export function startHeartbeat(notifier: Notifier, describe: () => string, statusEveryMs = 30_000): Heartbeat {
  if (!notifier.enabled) return { changed: () => undefined, stop: () => undefined };
  const watchdogMs = notifier.watchdogIntervalMs();
  const refresh = (): void => {
    try {
      notifier.status(describe());
    } catch {
      // A status that cannot be described this time must not cost the ping.
    }
  };
  const timer = setInterval(() => {
    if (watchdogMs !== undefined) notifier.watchdog();
    refresh();
  }, watchdogMs ?? statusEveryMs);
  timer.unref();
  let settling: NodeJS.Timeout | undefined;
  return {
    changed() {
      if (settling !== undefined) return;
      settling = setTimeout(() => {
        settling = undefined;
        refresh();
      }, STATUS_SETTLE_MS);
      settling.unref();
    },
    stop() {
      clearInterval(timer);
      clearTimeout(settling);
    },
  };
}

/** The short state for `systemctl status`: "3 linked, mqtt connected, ble off". */
export function systemdStatusOf(report: Pick<StatusReport, 'devices' | 'mqtt' | 'ble' | 'entitled' | 'token'>): string {
  const parts = [`${report.devices.linked} linked`];
  if (report.devices.linking > 0) parts.push(`${report.devices.linking} linking`);
  parts.push(`mqtt ${report.mqtt}`, `ble ${report.ble}`);
  if (report.token === 'refused' || report.token === 'missing') parts.push(`API token ${report.token}`);
  else if (report.entitled === false) parts.push('customer not entitled');
  return parts.join(', ');
}
