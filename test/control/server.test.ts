import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callDaemon } from '../../src/control/client.js';
import type { ControlHandlers } from '../../src/control/handlers.js';
import { MAX_REQUEST_BYTES } from '../../src/control/protocol.js';
import { startControlServer, type ControlServer } from '../../src/control/server.js';
import { PanicPairError } from '../../src/errors.js';
import { silentLogger } from '../../src/log/logger.js';
import { exchange, fakeHandlers, leaveStaleSocket, linkedRecord, sampleStatus, untilAborted, waitFor } from './fake-daemon.js';

let dir: string;
let socketPath: string;
let server: ControlServer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-control-'));
  socketPath = join(dir, 'panic-pair.sock');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function serve(handlers: ControlHandlers, requestTimeoutMs?: number): Promise<void> {
  server = await startControlServer({ socketPath, handlers, logger: silentLogger(), requestTimeoutMs });
}

function errorLine(reply: string): { type: string; kind: string; message: string } {
  const lines = reply.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '');
}

describe('control server and client', () => {
  it('answers status, devices, scan and forget', async () => {
    const scan = vi.fn(async (_seconds: number, _signal: AbortSignal) => [
      { deviceId: 'A1', source: 'ble', rssi: -50, lastSeen: '2025-03-01T10:00:00.000Z' },
    ]);
    const report = sampleStatus();
    await serve(fakeHandlers({ scan, status: () => report }));
    expect(await callDaemon(socketPath, { type: 'status' })).toEqual(report);
    expect(await callDaemon(socketPath, { type: 'devices' })).toHaveLength(2);
    expect(await callDaemon(socketPath, { type: 'scan', seconds: 3 })).toEqual([
      { deviceId: 'A1', source: 'ble', rssi: -50, lastSeen: '2025-03-01T10:00:00.000Z' },
    ]);
    expect(scan.mock.calls[0]?.[0]).toBe(3);
    expect(await callDaemon(socketPath, { type: 'forget', deviceId: '7F3A9C' })).toEqual({ removed: true });
    expect(await callDaemon(socketPath, { type: 'forget', deviceId: 'NOPE' })).toEqual({ removed: false });
  });

  it('streams pair progress in order, then the link', async () => {
    await serve(
      fakeHandlers({
        async pair(deviceId, options) {
          expect(options.timeoutMs).toBe(30_000);
          for (const step of ['waiting', 'checking', 'linking', 'linked'] as const) options.onProgress({ deviceId, step });
          return { ok: true, record: linkedRecord(deviceId, 17), alreadyLinked: false };
        },
      }),
    );
    const steps: string[] = [];
    const outcome = await callDaemon(socketPath, { type: 'pair', deviceId: '7F3A9C', timeoutMs: 30_000 }, {
      onProgress: (progress) => steps.push(progress.step),
    });
    expect(steps).toEqual(['waiting', 'checking', 'linking', 'linked']);
    expect(outcome).toEqual({ ok: true, record: linkedRecord('7F3A9C', 17), alreadyLinked: false });
  });

  it.each(['not-entitled', 'rejected', 'unauthorized', 'customer-not-found', 'timeout', 'store', 'invalid-reply'] as const)(
    'a pair outcome of kind %s reaches the client as that kind with its message',
    async (kind) => {
      await serve(fakeHandlers({ pair: async (deviceId) => ({ ok: false, deviceId, kind, message: `it went ${kind}` }) }));
      const call = callDaemon(socketPath, { type: 'pair', deviceId: 'B2', timeoutMs: 1000 });
      await expect(call).rejects.toBeInstanceOf(PanicPairError);
      await expect(call).rejects.toMatchObject({ kind, message: `it went ${kind}` });
    },
  );

  it('streams window outcomes, failed ones included, then the report', async () => {
    const failed = { ok: false as const, deviceId: 'B2', kind: 'rejected' as const, message: 'the API rejected the link' };
    const linked = { ok: true as const, record: linkedRecord('A1', 5), alreadyLinked: false };
    await serve(
      fakeHandlers({
        async window(_seconds, options) {
          options.onOutcome(linked);
          options.onOutcome(failed);
          return { openedAt: 'a', closedAt: 'b', outcomes: [linked, failed] };
        },
      }),
    );
    const seen: unknown[] = [];
    const report = await callDaemon(socketPath, { type: 'window', seconds: 60 }, { onOutcome: (o) => seen.push(o) });
    expect(seen).toEqual([linked, failed]);
    expect(report).toEqual({ openedAt: 'a', closedAt: 'b', outcomes: [linked, failed] });
  });

  it('turns a thrown PanicPairError into its kind, anything else into failure, and keeps serving', async () => {
    await serve(
      fakeHandlers({
        devices: () => {
          throw new PanicPairError('store', 'pairings.json cannot be read');
        },
        forget: async () => {
          throw new TypeError('boom');
        },
      }),
    );
    await expect(callDaemon(socketPath, { type: 'devices' })).rejects.toMatchObject({ kind: 'store', message: 'pairings.json cannot be read' });
    await expect(callDaemon(socketPath, { type: 'forget', deviceId: 'A1' })).rejects.toMatchObject({ kind: 'failure', message: 'boom' });
    expect(await callDaemon(socketPath, { type: 'status' })).toMatchObject({ customerId: 42 });
  });

  it('aborts the handler when the client disconnects', async () => {
    let signal: AbortSignal | undefined;
    await serve(
      fakeHandlers({
        pair: (_deviceId, options) => {
          signal = options.signal;
          return untilAborted(options.signal);
        },
      }),
    );
    const socket = createConnection({ path: socketPath });
    socket.write('{"type":"pair","deviceId":"7F3A9C","timeoutMs":60000}\n');
    await waitFor(() => signal !== undefined, 'the pair handler to run');
    expect(signal?.aborted).toBe(false);
    socket.destroy();
    await waitFor(() => signal?.aborted === true, 'the abort to reach the handler');
  });

  it('the client gives up at its timeout, which cancels the request in the daemon', async () => {
    let signal: AbortSignal | undefined;
    await serve(
      fakeHandlers({
        scan: (_seconds, s) => {
          signal = s;
          return untilAborted(s);
        },
      }),
    );
    await expect(callDaemon(socketPath, { type: 'scan', seconds: 60 }, { timeoutMs: 100 })).rejects.toMatchObject({ kind: 'timeout' });
    await waitFor(() => signal?.aborted === true, 'the abort to reach the handler');
  });

  it('close() ends an open request with an error and removes the socket file', async () => {
    let signal: AbortSignal | undefined;
    await serve(
      fakeHandlers({
        pair: (_id, options) => {
          signal = options.signal;
          return untilAborted(options.signal);
        },
      }),
    );
    const outcome = callDaemon(socketPath, { type: 'pair', deviceId: 'A1', timeoutMs: 60_000 }).catch((error: unknown) => error);
    await waitFor(() => signal !== undefined, 'the pair handler to run');
    await server?.close();
    server = undefined;
    expect(await outcome).toMatchObject({ kind: 'failure', message: expect.stringContaining('stopping') });
    expect(signal?.aborted).toBe(true);
    expect(existsSync(socketPath)).toBe(false);
  });
});

describe('what a client sends never crashes the server', () => {
  it.each([
    ['not JSON', 'hello\n', 'not valid JSON'],
    ['an array', '[1,2]\n', '"type"'],
    ['an unknown type', '{"type":"launch"}\n', 'unknown request type'],
    ['a bad deviceId', '{"type":"pair","deviceId":"no spaces allowed","timeoutMs":1000}\n', 'A-Z a-z 0-9'],
    ['no timeout', '{"type":"pair","deviceId":"A1"}\n', 'timeoutMs'],
    ['negative seconds', '{"type":"scan","seconds":-1}\n', 'seconds'],
    ['seconds as text', '{"type":"window","seconds":"60"}\n', 'seconds'],
    ['a forget without id', '{"type":"forget"}\n', 'A-Z a-z 0-9'],
  ])('refuses %s with kind usage', async (_name, line, words) => {
    const handlers = fakeHandlers();
    const pair = vi.spyOn(handlers, 'pair');
    await serve(handlers);
    const reply = errorLine(await exchange(socketPath, line));
    expect(reply).toMatchObject({ type: 'error', kind: 'usage' });
    expect(reply.message).toContain(words);
    expect(pair).not.toHaveBeenCalled();
  });

  it('refuses garbage bytes and an oversize line, then still answers', async () => {
    await serve(fakeHandlers());
    const garbage = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x7b, 0x0a]);
    expect(errorLine(await exchange(socketPath, garbage))).toMatchObject({ kind: 'usage' });
    const oversize = errorLine(await exchange(socketPath, 'x'.repeat(MAX_REQUEST_BYTES + 10)));
    expect(oversize).toMatchObject({ kind: 'usage', message: expect.stringContaining('longer than') });
    expect(await callDaemon(socketPath, { type: 'status' })).toMatchObject({ healthy: true });
  });

  it('drops a client that sends nothing', async () => {
    await serve(fakeHandlers(), 100);
    const socket = createConnection({ path: socketPath });
    socket.on('error', () => {});
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await once(socket, 'connect');
    await closed;
    expect(await callDaemon(socketPath, { type: 'status' })).toMatchObject({ healthy: true });
  });

  it('drops a client that trickles its request without ever ending the line', async () => {
    await serve(fakeHandlers(), 200);
    const socket = createConnection({ path: socketPath });
    socket.on('error', () => {}); // EPIPE once the server has dropped it
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await once(socket, 'connect');
    const trickle = setInterval(() => socket.write('{'), 20);
    await closed;
    clearInterval(trickle);
    expect(await callDaemon(socketPath, { type: 'status' })).toMatchObject({ healthy: true });
  });
});

describe('the socket file', () => {
  it('is group read/write (0660)', async () => {
    await serve(fakeHandlers());
    const info = await stat(socketPath);
    expect(info.isSocket()).toBe(true);
    expect(info.mode & 0o777).toBe(0o660);
  });

  it('a stale one left by a killed daemon is replaced', async () => {
    await leaveStaleSocket(socketPath);
    await expect(callDaemon(socketPath, { type: 'status' })).rejects.toMatchObject({
      kind: 'daemon-unreachable',
      message: expect.stringContaining('not running'),
    });
    await serve(fakeHandlers());
    expect(await callDaemon(socketPath, { type: 'status' })).toMatchObject({ customerId: 42 });
  });

  it('a live one is refused with kind locked, and the running daemon keeps it', async () => {
    await serve(fakeHandlers());
    const second = startControlServer({ socketPath, handlers: fakeHandlers(), logger: silentLogger() });
    await expect(second).rejects.toMatchObject({ kind: 'locked' });
    expect(await callDaemon(socketPath, { type: 'status' })).toMatchObject({ customerId: 42 });
  });

  it('a file that is not a socket is left alone and named', async () => {
    await writeFile(socketPath, 'precious');
    const start = startControlServer({ socketPath, handlers: fakeHandlers(), logger: silentLogger() });
    await expect(start).rejects.toMatchObject({ kind: 'config', message: expect.stringContaining(socketPath) });
    expect(existsSync(socketPath)).toBe(true);
  });
});
