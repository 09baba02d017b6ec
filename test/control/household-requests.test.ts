import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callDaemon } from '../../src/control/client.js';
import type { ControlHandlers } from '../../src/control/handlers.js';
import { startControlServer, type ControlServer } from '../../src/control/server.js';
import { silentLogger } from '../../src/log/logger.js';
import { exchange, fakeHandlers, linkedRecord, sampleWindow } from './fake-daemon.js';

// The household's part of the control protocol: a `household` request,
// and a `customerId` on `pair` and `window` that reaches the engine only as an integer.

let dir: string;
let socketPath: string;
let server: ControlServer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-household-control-'));
  socketPath = join(dir, 'panic-pair.sock');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function serve(handlers: ControlHandlers): Promise<void> {
  server = await startControlServer({ socketPath, handlers, logger: silentLogger() });
}

async function errorReply(line: string): Promise<{ type: string; kind?: string; message?: string }> {
  return JSON.parse((await exchange(socketPath, line)).trim());
}

describe('household control requests', () => {
  it('answers household with what the engine says', async () => {
    const entries = [
      { customerId: 70, entitled: true, role: 'hub' as const },
      { customerId: 77, entitled: false, role: 'dependant' as const },
    ];
    await serve(fakeHandlers({ household: async () => entries }));
    expect(await callDaemon(socketPath, { type: 'household' })).toEqual(entries);
  });

  it('passes customerId of pair and window through, and leaves it out when not given', async () => {
    const handlers = fakeHandlers({
      pair: vi.fn(async (deviceId: string) => ({ ok: true as const, record: linkedRecord(deviceId, 1), alreadyLinked: false })),
      window: vi.fn(async () => sampleWindow()),
    });
    await serve(handlers);
    await callDaemon(socketPath, { type: 'pair', deviceId: 'A1', timeoutMs: 1000, customerId: 77 });
    await callDaemon(socketPath, { type: 'pair', deviceId: 'A2', timeoutMs: 1000 });
    await callDaemon(socketPath, { type: 'window', seconds: 1, customerId: 78 });
    await callDaemon(socketPath, { type: 'window', seconds: 1 });
    const pairs = vi.mocked(handlers.pair).mock.calls.map(([, options]) => options.customerId);
    const windows = vi.mocked(handlers.window).mock.calls.map(([, options]) => options.customerId);
    expect(pairs).toEqual([77, undefined]);
    expect(windows).toEqual([78, undefined]);
  });

  it.each([
    ['a customerId as text', '{"type":"pair","deviceId":"A1","timeoutMs":1000,"customerId":"77"}\n'],
    ['a fractional customerId', '{"type":"window","seconds":5,"customerId":7.5}\n'],
    ['a customerId past the safe integers', '{"type":"pair","deviceId":"A1","timeoutMs":1000,"customerId":1e300}\n'],
    ['a null customerId', '{"type":"window","seconds":5,"customerId":null}\n'],
  ])('refuses %s with kind usage, and no handler runs', async (_name, line) => {
    const handlers = fakeHandlers();
    const pair = vi.spyOn(handlers, 'pair');
    const window = vi.spyOn(handlers, 'window');
    await serve(handlers);
    expect(await errorReply(line)).toMatchObject({ type: 'error', kind: 'usage', message: expect.stringContaining('customerId') });
    expect(pair).not.toHaveBeenCalled();
    expect(window).not.toHaveBeenCalled();
  });
});
