import { describe, expect, it } from 'vitest';
import type { ControlHandlers } from '../../src/control/handlers.js';
import { guardPairing, guardWindow } from '../../src/daemon/hearing-guard.js';
import { PanicPairError } from '../../src/errors.js';
import type { LinkOutcome, PairProgress } from '../../src/pairing/types.js';

// `pair <id>` against a hub that cannot hear: at once when it is deaf already, and as soon as it
// turns deaf while waiting for the button; never once the button was heard.

function hearingOf(initial: string | undefined) {
  let deafness = initial;
  const listeners = new Set<() => void>();
  return {
    hearing: { deafness: () => deafness, onChange: (listener: () => void) => (listeners.add(listener), () => listeners.delete(listener)) },
    turnDeaf(reason: string) {
      deafness = reason;
      for (const listener of listeners) listener();
    },
    listeners,
  };
}

/** A pair that reports `steps`, then waits for its signal and returns the abort's reason. */
function waitingPair(steps: PairProgress['step'][]): ControlHandlers['pair'] {
  return (deviceId, options) => {
    for (const step of steps) options.onProgress({ deviceId, step });
    return new Promise<LinkOutcome>((resolve) => {
      options.signal.addEventListener('abort', () => {
        const reason: unknown = options.signal.reason;
        const message = reason instanceof PanicPairError ? reason.message : 'cancelled';
        resolve({ ok: false, deviceId, kind: 'failure', message });
      });
    });
  };
}

const run = (pair: ControlHandlers['pair'], signal = new AbortController().signal) =>
  pair('B1', { timeoutMs: 60_000, signal, onProgress: () => undefined });

describe('guardPairing', () => {
  it('fails at once, with the reason, when no source can hear', async () => {
    const { hearing } = hearingOf('the broker refuses p/announce');
    let asked = false;
    const outcome = await run(guardPairing(() => ((asked = true), new Promise<LinkOutcome>(() => undefined)), hearing));
    expect(outcome).toEqual({ ok: false, deviceId: 'B1', kind: 'failure', message: 'cannot hear B1: the broker refuses p/announce' });
    expect(asked).toBe(false);
  });

  it('stops the wait for the button as soon as the hub turns deaf, and stops listening after', async () => {
    const state = hearingOf(undefined);
    const outcome = run(guardPairing(waitingPair(['waiting']), state.hearing));
    state.turnDeaf('the broker refuses p/announce');
    expect(await outcome).toMatchObject({ ok: false, message: 'cannot hear B1: the broker refuses p/announce' });
    expect(state.listeners.size).toBe(0);
  });

  it('lets a link go on once the button was heard', async () => {
    const state = hearingOf(undefined);
    const cancel = new AbortController();
    const outcome = run(guardPairing(waitingPair(['waiting', 'checking']), state.hearing), cancel.signal);
    state.turnDeaf('the broker refuses p/announce');
    cancel.abort();
    expect(await outcome).toMatchObject({ ok: false, message: 'cancelled' });
  });
});

describe('guardWindow', () => {
  it('refuses a window that could hear nothing, and opens one otherwise', async () => {
    const report = { openedAt: 'a', closedAt: 'b', outcomes: [] };
    const open: ControlHandlers['window'] = () => Promise.resolve(report);
    const options = { signal: new AbortController().signal, onProgress: () => undefined, onOutcome: () => undefined };
    await expect(guardWindow(open, hearingOf('the broker refuses p/announce').hearing)(30, options)).rejects.toThrow(
      'a pairing window would hear no button: the broker refuses p/announce',
    );
    expect(await guardWindow(open, hearingOf(undefined).hearing)(30, options)).toBe(report);
  });
});
