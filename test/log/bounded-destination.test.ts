import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedDestination } from '../../src/log/bounded-destination.js';
import { waitFor } from '../support/wait.js';

// The daemon's log lines while their reader is slow: a pipe nobody reads holds 64 kB,
// then the destination holds at most its bound and drops the rest, counted, never kept.

const dirs: string[] = [];
const fds: number[] = [];
afterEach(() => {
  for (const fd of fds.splice(0)) closeSync(fd);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A pipe nobody reads yet: its write end, non-blocking as stdout to journald is, and its read end. */
function stalledPipe(): { write: number; read: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-log-'));
  dirs.push(dir);
  const fifo = path.join(dir, 'log');
  execFileSync('mkfifo', [fifo]);
  // Non-blocking, the read end opens without a writer and the write end then finds its reader.
  const read = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const write = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  // The write end is the destination's, closed when it is destroyed.
  fds.push(read);
  return { write, read };
}

describe('the log destination while its reader stalls', () => {
  it('holds at most its bound and counts the lines it drops instead of keeping them', async () => {
    const pipe = stalledPipe();
    const maxBytes = 64 * 1024;
    const destination = boundedDestination({ fd: pipe.write, maxBytes });
    const logger = pino({ base: null, timestamp: false }, destination.stream);
    const line = 'x'.repeat(1000);
    for (let i = 0; i < 10_000; i++) logger.warn({ i, line }, 'a line of a flood');
    const buffered = (destination.stream as unknown as { _len: number })._len;
    expect(buffered).toBeLessThanOrEqual(maxBytes);
    // About 10 MB were logged: the pipe took 64 kB, the destination at most 64 kB, the rest dropped.
    expect(destination.drops().lines).toBeGreaterThan(9_000);
    expect(destination.drops().bytes).toBeGreaterThan(9_000_000);

    // The reader takes lines again: once the waiting ones are written, the drops are told and counted anew.
    const told: number[] = [];
    destination.onDropsEnded((drops) => told.push(drops.lines));
    const chunk = Buffer.alloc(64 * 1024);
    await waitFor(
      () => {
        try {
          while (readSync(pipe.read, chunk) > 0);
        } catch {
          // EAGAIN: read all there was.
        }
        const { _len: waiting, _writing: writing } = destination.stream as unknown as { _len: number; _writing: boolean };
        return told.length > 0 && waiting === 0 && !writing;
      },
      { what: 'the drops to be told' },
    );
    expect(told[0]).toBeGreaterThan(9_000);
    expect(destination.drops().lines).toBe(0);
    await new Promise((resolve) => {
      const stream = destination.stream as unknown as { destroy(): void; once(event: 'close', listener: () => void): void };
      stream.once('close', () => resolve(undefined));
      stream.destroy();
    });
  });
});
