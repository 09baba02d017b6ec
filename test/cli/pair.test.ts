import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlHandlers } from '../../src/control/handlers.js';
import { startControlServer, type ControlServer } from '../../src/control/server.js';
import { PanicPairError, type ErrorKind } from '../../src/errors.js';
import { silentLogger } from '../../src/log/logger.js';
import type { LinkOutcome } from '../../src/pairing/types.js';
import { fakeHandlers, linkedRecord, untilAborted, waitFor } from '../control/fake-daemon.js';
import { assertBuilt, runCli } from './run-cli.js';

// `panic-pair pair`, the real binary against a control server run by the test.

const FAILURES: Record<string, { kind: ErrorKind; exitCode: number }> = {
  NOTENT: { kind: 'not-entitled', exitCode: 3 },
  REJ: { kind: 'rejected', exitCode: 4 },
  UNAUTH: { kind: 'unauthorized', exitCode: 5 },
  NOCUST: { kind: 'customer-not-found', exitCode: 6 },
  UNSEEN: { kind: 'timeout', exitCode: 8 },
  DISK: { kind: 'store', exitCode: 1 },
  ODD: { kind: 'invalid-reply', exitCode: 1 },
};

let dir: string;
let server: ControlServer;
const pairCalls: { deviceId: string; timeoutMs: number }[] = [];
let stalledSignal: AbortSignal | undefined;

const handlers: ControlHandlers = fakeHandlers({
  async pair(deviceId, options) {
    pairCalls.push({ deviceId, timeoutMs: options.timeoutMs });
    if (deviceId === 'STALL') {
      stalledSignal = options.signal;
      return untilAborted(options.signal);
    }
    for (const step of ['waiting', 'checking', 'linking', 'linked'] as const) {
      options.onProgress({ deviceId, step, customerId: 42, source: 'ble', rssi: -58 });
    }
    const failure = FAILURES[deviceId];
    if (failure) return { ok: false, deviceId, kind: failure.kind, message: `${failure.kind} happened to ${deviceId}` };
    if (deviceId === 'OLD1') return { ok: true, record: linkedRecord(deviceId, 9), alreadyLinked: true };
    return { ok: true, record: linkedRecord(deviceId, 17), alreadyLinked: false };
  },
  async window(seconds, options) {
    const linked: LinkOutcome = { ok: true, record: linkedRecord('A1', 21), alreadyLinked: false };
    const failed: LinkOutcome = { ok: false, deviceId: 'B2', kind: 'rejected', message: 'the API rejected the link: bad deviceTypeId' };
    if (seconds === 13) throw new PanicPairError('failure', 'a pairing window for customer 77 is open; wait for it to close');
    options.onOpen?.();
    options.onProgress({ deviceId: 'A1', step: 'checking', source: 'ble', rssi: -58 });
    options.onOutcome(linked);
    options.onProgress({ deviceId: 'B2', step: 'checking', source: 'mqtt' });
    options.onOutcome(failed);
    return { openedAt: '2025-03-01T10:00:00.000Z', closedAt: `2025-03-01T10:00:${String(seconds).padStart(2, '0')}.000Z`, outcomes: [linked, failed] };
  },
});

const pair = (...args: string[]) => runCli(['pair', ...args], { runtimeDir: dir });

beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-cli-pair-'));
  await chmod(dir, 0o755);
  server = await startControlServer({ socketPath: join(dir, 'panic-pair.sock'), handlers, logger: silentLogger() });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('pair <deviceId>', () => {
  it('shows each step as a plain line without a terminal, and exits 0 when linked', async () => {
    const result = await pair('7F3A9C');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      'Waiting for button 7F3A9C — press it now',
      'Checking the subscription of customer 42',
      'Linking 7F3A9C',
      '✔ Linked 7F3A9C (link 17)',
      '',
    ]);
    expect(result.stdout).not.toContain('\x1b');
    expect(result.stderr).toBe('');
  });

  it('exits 0 when already linked and says so', async () => {
    const result = await pair('OLD1');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('OLD1 is already linked (link 9');
  });

  it('passes --timeout to the daemon in milliseconds, 120 s by default', async () => {
    await pair('T30', '--timeout', '30');
    await pair('TDEF');
    expect(pairCalls.find((call) => call.deviceId === 'T30')?.timeoutMs).toBe(30_000);
    expect(pairCalls.find((call) => call.deviceId === 'TDEF')?.timeoutMs).toBe(120_000);
  });

  it.each(Object.entries(FAILURES))('%s: exit code of its kind, the message on stderr', async (deviceId, { kind, exitCode }) => {
    const result = await pair(deviceId);
    expect(result.code).toBe(exitCode);
    expect(result.stderr).toBe(`panic-pair: ${kind} happened to ${deviceId}\n`);
    expect(result.stdout).toContain(`✘ Linking ${deviceId}`);
  });

  it('--json: one document on stdout when linked', async () => {
    const result = await pair('7F3A9C', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: true,
      deviceId: '7F3A9C',
      state: 'linked',
      customerId: 42,
      linkId: 17,
      linkedAt: '2025-03-01T10:00:00.000Z',
      alreadyLinked: false,
    });
    expect(result.stderr).toBe('');
  });

  it('--json: already linked', async () => {
    const result = await pair('OLD1', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, linkId: 9, alreadyLinked: true });
  });

  it.each(Object.entries(FAILURES))('--json %s: one failure document, exit code set, message on stderr', async (deviceId, { kind, exitCode }) => {
    const result = await pair(deviceId, '--json');
    expect(result.code).toBe(exitCode);
    expect(JSON.parse(result.stdout)).toEqual({ ok: false, deviceId, kind, message: `${kind} happened to ${deviceId}`, exitCode });
    expect(result.stderr).toContain(`${kind} happened to ${deviceId}`);
  });

  it('gives up with exit 8 when the daemon sends no result within the timeout and 15 s, cancelling the request', async () => {
    const result = await pair('STALL', '--timeout', '0.2', '--json');
    expect(result.code).toBe(8);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, deviceId: 'STALL', kind: 'timeout', exitCode: 8 });
    await waitFor(() => stalledSignal?.aborted === true, 'the daemon side to be cancelled');
  }, 40_000);
});

describe('pair usage errors (exit 2)', () => {
  it.each([
    ['neither a deviceId nor --window', [], 'name the button'],
    ['both a deviceId and --window', ['A1', '--window', '30'], 'not both'],
    ['--timeout with --window', ['--window', '30', '--timeout', '10'], '--timeout'],
    ['an invalid deviceId', ['no/slash'], 'A-Z a-z 0-9 . _ : -'],
    ['a timeout that is not a number', ['A1', '--timeout', 'soon'], 'seconds'],
    ['a timeout over a day', ['A1', '--timeout', '100000'], '--timeout must be at most 86400 seconds'],
    ['a window over a day', ['--window', '100000'], '--window must be at most 86400 seconds'],
  ])('%s', async (_name, args, words) => {
    const before = pairCalls.length;
    const result = await pair(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(words);
    expect(pairCalls.length).toBe(before);
  });

  it('--json with an invalid deviceId still prints one document', async () => {
    const result = await pair('bad id', '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, deviceId: 'bad id', kind: 'usage', exitCode: 2 });
  });
});

describe('pair --window', () => {
  it('prints each outcome as it happens, then a summary; exit 0', async () => {
    const result = await pair('--window', '30');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Pairing window open for 30 s');
    expect(result.stdout).toContain('✔ Linked A1 (ble, -58 dBm)\n');
    expect(result.stdout).toContain('✘ B2: the API rejected the link: bad deviceTypeId\n');
    expect(result.stdout).toContain('1 linked (A1), 1 failed (B2)');
  });

  it('says nothing about pressing buttons when the daemon refuses the window; exit 1', async () => {
    const result = await pair('--window', '13');
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('press');
    expect(result.stdout).not.toContain('Pairing window open');
    expect(result.stderr).toContain('a pairing window for customer 77 is open');
  });

  it('--json: one document with the window, the linked records and the failures', async () => {
    const result = await pair('--window', '30', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      window: { openedAt: '2025-03-01T10:00:00.000Z', closedAt: '2025-03-01T10:00:30.000Z' },
      linked: [linkedRecord('A1', 21)],
      failed: [{ deviceId: 'B2', kind: 'rejected', message: 'the API rejected the link: bad deviceTypeId' }],
    });
  });
});
