import { writeFileSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectAgent } from '../support/guest-agent.js';

// qemu makes its agent socket's file when it binds and listens only later: a connect in between is
// refused. The kernel guest connects again until qemu listens, or qemu is gone. Here a plain file
// stands for the socket not yet listening (a connect to it is refused as qemu's is).

describe("connecting to qemu's agent socket", () => {
  let dir: string;
  let socketPath: string;
  let server: net.Server | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'panic-pair-agent-'));
    socketPath = path.join(dir, 'agent.sock');
    writeFileSync(socketPath, '');
  });

  afterEach(async () => {
    server?.close();
    server = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('is refused while nothing listens, tries again, and connects once qemu listens', async () => {
    let refusals = 0;
    const accepted = new Promise<net.Socket>((resolve) => {
      server = net.createServer(resolve);
    });
    // Asked after each refused try: on the second, qemu starts listening.
    const gone = (): boolean => {
      refusals += 1;
      if (refusals === 2) void unlink(socketPath).then(() => server?.listen(socketPath));
      return false;
    };
    const socket = await connectAgent(socketPath, gone, 30_000);
    expect(refusals).toBeGreaterThanOrEqual(2);
    const peer = await accepted;
    socket.write('ready\n');
    const line = await new Promise<string>((resolve) => peer.once('data', (chunk) => resolve(chunk.toString())));
    expect(line).toBe('ready\n');
    socket.destroy();
    peer.destroy();
  });

  it('fails, naming the refusal, once qemu has exited', async () => {
    await expect(connectAgent(socketPath, () => true, 30_000)).rejects.toThrow(/qemu exited before its agent socket answered \(connect ECONNREFUSED/);
  });

  it('fails when qemu never listens within the time given', async () => {
    await expect(connectAgent(socketPath, () => false, 300)).rejects.toThrow(/did not answer in 0.3 s/);
  });
});
