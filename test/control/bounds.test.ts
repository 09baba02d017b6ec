import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callDaemon } from '../../src/control/client.js';
import { MAX_REQUEST_BYTES } from '../../src/control/protocol.js';
import { MAX_CONNECTIONS, startControlServer, type ControlServer } from '../../src/control/server.js';
import { silentLogger } from '../../src/log/logger.js';
import { exchange, fakeHandlers, untilAborted, waitFor } from './fake-daemon.js';

// What clients of the control socket can make the daemon hold: a bounded line each, a
// bounded number served at once (the rest told so, not dropped without a word), and no connection
// kept once its answer is out.

let dir: string;
let socketPath: string;
let server: ControlServer | undefined;
const clients: Socket[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-control-bounds-'));
  socketPath = join(dir, 'panic-pair.sock');
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

interface Client {
  socket: Socket;
  /** What the server sent so far. */
  received(): string;
  closed: Promise<void>;
}

/** A client that sends `line` and, with halfOpen, keeps its side open after the server's end. */
function connect(line: string, halfOpen = false): Client {
  const socket = createConnection({ path: socketPath, allowHalfOpen: halfOpen });
  clients.push(socket);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(line);
  return { socket, received: () => text, closed };
}

describe('connections at once', () => {
  it(`100 clients at once: ${MAX_CONNECTIONS} served, the rest told the daemon is busy, and all served again once they leave`, async () => {
    let running = 0;
    server = await startControlServer({
      socketPath,
      logger: silentLogger(),
      handlers: fakeHandlers({
        scan: (_seconds, signal) => {
          running++;
          return untilAborted(signal);
        },
      }),
    });
    const hundred = Array.from({ length: 100 }, () => connect('{"type":"scan","seconds":600}\n'));
    const busy = (client: Client): boolean => client.received().includes('"kind":"transient"');
    await waitFor(() => running === MAX_CONNECTIONS && hundred.filter(busy).length === 100 - MAX_CONNECTIONS, 'the cap to fill', 10_000);
    for (const client of hundred.filter(busy)) {
      expect(JSON.parse(client.received())).toEqual({
        type: 'error',
        kind: 'transient',
        message: `the panic-pair daemon is serving ${MAX_CONNECTIONS} clients at once; try again in a moment`,
      });
    }
    // The turned-away are closed by the daemon; the served stay while their scans run.
    await Promise.all(hundred.filter(busy).map((client) => client.closed));
    await expect(callDaemon(socketPath, { type: 'status' })).rejects.toMatchObject({ kind: 'transient' });
    for (const client of hundred) client.socket.destroy();
    await waitFor(() => false === hundred.some((client) => !client.socket.destroyed), 'the clients to go');
    await expect(waitForStatus()).resolves.toMatchObject({ healthy: true });
  });

  it('clients that keep their side open after the answer hold no slot', async () => {
    server = await startControlServer({ socketPath, logger: silentLogger(), handlers: fakeHandlers() });
    // One after another, each left open once answered: were each to keep its slot, the last few
    // would be told the daemon is busy.
    for (let index = 0; index < MAX_CONNECTIONS + 8; index++) {
      const client = connect('{"type":"status"}\n', true);
      await once(client.socket, 'end');
      expect(client.received()).toContain('"type":"result"');
    }
    expect(await callDaemon(socketPath, { type: 'status' })).toMatchObject({ healthy: true });
  });
});

describe('frames', () => {
  it('two clients sending oversized and malformed frames in a loop: each refused, the daemon still answers', async () => {
    server = await startControlServer({ socketPath, logger: silentLogger(), handlers: fakeHandlers() });
    const frames: Array<string | Buffer> = [
      'x'.repeat(MAX_REQUEST_BYTES + 1),
      `{"type":"pair","deviceId":"${'A'.repeat(MAX_REQUEST_BYTES)}","timeoutMs":1000}\n`,
      `${'['.repeat(5_000)}\n`,
      '{"type":"status","__proto__":{"polluted":true}}\n',
      '{"type":"window","seconds":1e309}\n',
      Buffer.from([0xff, 0xfe, 0xfd, 0x0a]),
      '\n',
    ];
    const loop = async (): Promise<void> => {
      for (let round = 0; round < 10; round++) {
        for (const frame of frames) {
          const reply = await exchange(socketPath, frame);
          expect(reply.trim().split('\n')).toHaveLength(1);
          expect(JSON.parse(reply)).toHaveProperty('type');
        }
      }
    };
    await Promise.all([loop(), loop()]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(await callDaemon(socketPath, { type: 'status' })).toMatchObject({ healthy: true });
  });

  it('a client that keeps sending after its refusal is cut off', async () => {
    server = await startControlServer({ socketPath, logger: silentLogger(), handlers: fakeHandlers() });
    const client = connect('not json\n', true);
    const flood = setInterval(() => client.socket.write('more garbage\n'), 10);
    try {
      await client.closed;
    } finally {
      clearInterval(flood);
    }
    expect(client.received()).toContain('"kind":"usage"');
  });
});

async function waitForStatus(): Promise<unknown> {
  // The daemon forgets a closed connection on the next turn: a status may briefly still be "busy".
  let last: unknown;
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      return await callDaemon(socketPath, { type: 'status' });
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  throw last;
}
