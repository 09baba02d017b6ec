import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { once } from 'node:events';
import type { ControlHandlers } from '../../src/control/handlers.js';
import type { StatusReport } from '../../src/status/status-report.js';
import type { DeviceRecord } from '../../src/store/record.js';
import type { ScanEntry, WindowReport } from '../../src/pairing/types.js';

// Fake answers for the control socket, shared by the control and CLI tests. The socket, the
// server and the client are real; only what the daemon would answer is made up here.

export function sampleStatus(healthy = true): StatusReport {
  return {
    version: '0.1.0',
    pid: 4242,
    startedAt: new Date(Date.now() - 3_723_000).toISOString(),
    healthy,
    problems: healthy ? [] : ['the API refused the token (401)'],
    customerId: 42,
    entitled: healthy ? true : null,
    household: [42],
    token: healthy ? 'accepted' : 'refused',
    api: healthy ? { state: 'ok' } : { state: 'failing', lastError: '401 Unauthorized' },
    mqtt: 'connected',
    bleAdapter: { name: 'hci0', address: 'C4:64:9F:00:00:01' },
    bleRestarts: 0,
    bleLastHeardSeconds: 3,
    ble: 'scanning',
    store: { ok: true, path: '/var/lib/panic-pair/pairings.json' },
    buttons: { linked: 1, online: 1, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 },
    devices: { total: 2, linked: 1, linking: 0, rejected: 1, failed: 0 },
    autoPair: false,
    counters: { announcements: 12, dropped: 1, links: 1, apiErrors: healthy ? 0 : 3, batteryDropped: 0, forged: 0, replayed: 0, plain: 0 },
  };
}

export function linkedRecord(deviceId: string, linkId: number): DeviceRecord {
  return {
    deviceId,
    state: 'linked',
    customerId: 42,
    source: 'ble',
    linkId,
    linkedAt: '2025-03-01T10:00:00.000Z',
    updatedAt: '2025-03-01T10:00:00.000Z',
  };
}

export const SAMPLE_DEVICES: DeviceRecord[] = [
  linkedRecord('7F3A9C', 17),
  {
    deviceId: 'B2',
    state: 'rejected',
    customerId: 42,
    source: 'mqtt',
    updatedAt: '2025-03-01T10:05:00.000Z',
    error: 'the API rejected the link: deviceTypeId unknown',
  },
];

/** Buttons seen just now: made at each scan, as a module one process keeps for many test files (the suite's project shares one) must not age them. */
export function sampleScan(): ScanEntry[] {
  const now = new Date().toISOString();
  return [
    { deviceId: 'FAR1', source: 'ble', rssi: -80, lastSeen: now },
    { deviceId: 'MQ1', source: 'mqtt', lastSeen: now },
    { deviceId: 'NEAR1', source: 'ble', rssi: -40, lastSeen: now, state: 'linked' },
  ];
}

export function sampleWindow(): WindowReport {
  return { openedAt: '2025-03-01T10:00:00.000Z', closedAt: '2025-03-01T10:01:00.000Z', outcomes: [] };
}

/** Handlers that answer at once; a test overrides the ones it exercises. */
export function fakeHandlers(overrides: Partial<ControlHandlers> = {}): ControlHandlers {
  return {
    status: () => sampleStatus(),
    devices: () => SAMPLE_DEVICES,
    scan: async () => sampleScan(),
    forget: async (deviceId) => ({ removed: deviceId === '7F3A9C' }),
    pair: async (deviceId) => ({ ok: true, record: linkedRecord(deviceId, 17), alreadyLinked: false }),
    window: async () => sampleWindow(),
    household: async () => [{ customerId: 42, entitled: true, role: 'hub' }],
    ...overrides,
  };
}

/** Resolves when `signal` aborts: a handler that waits until the client goes away. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Sends raw bytes to the socket and collects everything the server writes until it closes the connection. */
export async function exchange(socketPath: string, bytes: string | Buffer): Promise<string> {
  const socket = createConnection({ path: socketPath });
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {}); // the server may close while we still write
  const closed = new Promise((resolve) => socket.on('close', resolve)); // once() would reject on that error
  socket.write(bytes);
  await closed;
  return received;
}

/** Polls a condition with a bound, instead of sleeping a fixed time. */
export async function waitFor(condition: () => boolean, what: string, boundMs = 5000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A socket file left by a crashed daemon: a real process listens on `socketPath` and is killed
 * with SIGKILL, so nothing removes the file and nothing answers there.
 */
export async function leaveStaleSocket(socketPath: string): Promise<void> {
  const child = spawn(process.execPath, [
    '-e',
    `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('ready'))`,
  ]);
  await once(child.stdout, 'data');
  child.kill('SIGKILL');
  await once(child, 'exit');
  if (!existsSync(socketPath)) throw new Error('the killed process left no socket file');
}
