import { describe, expect, it } from 'vitest';
import { PanicPairError } from '../../src/errors.js';
import type { CentralSettings } from '../../src/fleet/central-input.js';
import type { CentralReader } from '../../src/fleet/central-reader.js';
import { afterLost, reachAgain } from '../../src/fleet/node-failover.js';

// `fleet --watch` after losing its node: the order the others are tried
// in, what is said while none answers, and a stop while waiting. The real cluster's case is in
// nats-cluster.test.ts.

const node = (port: number): CentralSettings => ({ url: new URL(`mqtt://127.0.0.1:${port}`), address: `mqtt://127.0.0.1:${port}` });
const [A, B, C] = [node(1), node(2), node(3)] as const;

/** A reader that is never used beyond its close. */
function reader(): CentralReader & { closed: boolean } {
  const opened = {
    closed: false,
    connection: {} as CentralReader['connection'],
    retainedRead: Promise.resolve({ by: 'marker' as const, count: 0, ms: 0 }),
    close: async () => {
      opened.closed = true;
    },
  };
  return opened;
}

describe('the order after a lost node', () => {
  it('is the nodes after it, then those before it, then itself', () => {
    expect(afterLost([A, B, C], A)).toEqual([B, C, A]);
    expect(afterLost([A, B, C], B)).toEqual([C, A, B]);
    expect(afterLost([A, B, C], C)).toEqual([A, B, C]);
    expect(afterLost([A], A)).toEqual([A]);
  });
});

describe('reaching a node again', () => {
  it('opens the next node that answers, passing over one that refuses', async () => {
    const tried: string[] = [];
    const notes: string[] = [];
    const opened = reader();
    const reached = await reachAgain(
      [A, B, C],
      A,
      async (candidate) => {
        tried.push(candidate.address);
        if (candidate === B) throw new PanicPairError('config', 'refused');
        return opened;
      },
      (text) => notes.push(text),
      new AbortController().signal,
    );
    expect(tried).toEqual([B.address, C.address]);
    expect(reached?.node).toBe(C);
    expect(reached?.reader).toBe(opened);
    expect(notes).toEqual([]);
  });

  it('says once that no node answers, naming each, and stops waiting when stopped', async () => {
    const notes: string[] = [];
    const stop = new AbortController();
    const reached = await reachAgain(
      [A, B, C],
      B,
      async (candidate) => {
        throw new PanicPairError('config', `${candidate.address} refused`);
      },
      (text) => {
        notes.push(text);
        // Stopped during the pause that follows a round with no answer.
        queueMicrotask(() => stop.abort());
      },
      stop.signal,
    );
    expect(reached).toBeUndefined();
    expect(notes).toEqual([
      `no node answers (${C.address}: ${C.address} refused; ${A.address}: ${A.address} refused; ${B.address}: ${B.address} refused); trying again every 5 s`,
    ]);
  });

  it('closes a reader opened after the stop', async () => {
    const stop = new AbortController();
    const opened = reader();
    const reached = await reachAgain(
      [A, B],
      A,
      async () => {
        stop.abort();
        return opened;
      },
      () => undefined,
      stop.signal,
    );
    expect(reached).toBeUndefined();
    expect(opened.closed).toBe(true);
  });
});
