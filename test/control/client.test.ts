import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callDaemon } from '../../src/control/client.js';
import { PanicPairError } from '../../src/errors.js';
import { leaveStaleSocket } from './fake-daemon.js';

// The client against sockets that misbehave in ways the real server never does: no file, a
// stale file, a peer that hangs up or answers nonsense.

let dir: string;
let socketPath: string;
let peer: Server | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-client-'));
  socketPath = join(dir, 'panic-pair.sock');
});

afterEach(async () => {
  if (peer) await new Promise((resolve) => peer?.close(resolve));
  peer = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function listenWith(onRequest: (socket: Socket) => void): Promise<void> {
  peer = createServer((socket) => socket.once('data', () => onRequest(socket)));
  peer.listen(socketPath);
  await once(peer, 'listening');
}

describe('callDaemon', () => {
  it('no socket file (ENOENT): daemon-unreachable, naming the path and how to start it', async () => {
    const call = callDaemon(socketPath, { type: 'status' });
    await expect(call).rejects.toBeInstanceOf(PanicPairError);
    await expect(call).rejects.toMatchObject({
      kind: 'daemon-unreachable',
      message: `the panic-pair daemon is not running (no control socket at ${socketPath}). Start it: systemctl start panic-pair`,
    });
  });

  it('a socket nobody listens on (ECONNREFUSED): daemon-unreachable', async () => {
    await leaveStaleSocket(socketPath);
    await expect(callDaemon(socketPath, { type: 'devices' })).rejects.toMatchObject({
      kind: 'daemon-unreachable',
      message: expect.stringContaining('not running'),
    });
  });

  it('a connection closed before the result: failure', async () => {
    await listenWith((socket) => {
      socket.write('{"type":"progress","progress":{"deviceId":"A1","step":"waiting"}}\n');
      socket.end();
    });
    const steps: string[] = [];
    const call = callDaemon(socketPath, { type: 'pair', deviceId: 'A1', timeoutMs: 1000 }, { onProgress: (p) => steps.push(p.step) });
    await expect(call).rejects.toMatchObject({ kind: 'failure', message: expect.stringContaining('without an answer') });
    expect(steps).toEqual(['waiting']);
  });

  it('a reply it cannot read: failure', async () => {
    await listenWith((socket) => socket.end('<html>not a daemon</html>\n'));
    await expect(callDaemon(socketPath, { type: 'status' })).rejects.toMatchObject({ kind: 'failure', message: expect.stringContaining('cannot read') });
  });

  it('an unknown error kind from the daemon becomes failure, its message kept', async () => {
    await listenWith((socket) => socket.end('{"type":"error","kind":"meltdown","message":"something new"}\n'));
    await expect(callDaemon(socketPath, { type: 'status' })).rejects.toMatchObject({ kind: 'failure', message: 'something new' });
  });

  it('a result split across writes is put back together', async () => {
    await listenWith((socket) => {
      socket.write('{"type":"result",');
      setImmediate(() => socket.end('"data":{"removed":true}}\n'));
    });
    expect(await callDaemon(socketPath, { type: 'forget', deviceId: 'A1' })).toEqual({ removed: true });
  });
});
