import { messageOf } from '../errors.js';
import type { CentralSettings } from './central-input.js';
import type { CentralReader } from './central-reader.js';

// `fleet --watch` after losing its node: the next node of the cluster
// that answers, in the order given, the lost one tried last; one broker is simply tried again.
// A round in which no node answers (a cluster without its quorum, a broker restarting) is
// followed by a pause, and the rounds go on until one answers or the watch is stopped.

/** Between rounds in which no node answered. */
export const RECONNECT_MS = 5_000;

/** The order to try after losing `lost`: the nodes after it, then those before it, then itself. */
export function afterLost<T>(nodes: readonly T[], lost: T): T[] {
  const at = nodes.indexOf(lost);
  return [...nodes.slice(at + 1), ...nodes.slice(0, at + 1)];
}

export interface Reached {
  node: CentralSettings;
  reader: CentralReader;
}

/**
 * The first node after `lost` that answers, its reader open; undefined once `stop` aborts.
 * `note` hears why a round failed, each time the words change (not every five seconds).
 */
export async function reachAgain(
  nodes: readonly CentralSettings[],
  lost: CentralSettings,
  open: (node: CentralSettings) => Promise<CentralReader>,
  note: (text: string) => void,
  stop: AbortSignal,
): Promise<Reached | undefined> {
  let lastWords = '';
  for (;;) {
    const failures: string[] = [];
    for (const node of afterLost(nodes, lost)) {
      if (stop.aborted) return undefined;
      try {
        const reader = await open(node);
        // Its retained copies come as changes do; a loss while they come is seen by its `close`.
        reader.retainedRead.catch(() => undefined);
        if (!stop.aborted) return { node, reader };
        await reader.close();
        return undefined;
      } catch (error) {
        failures.push(nodes.length === 1 ? messageOf(error) : `${node.address}: ${messageOf(error)}`);
      }
    }
    const words = nodes.length === 1 ? failures.join('') : `no node answers (${failures.join('; ')})`;
    if (words !== lastWords) note(`${words}; trying again every ${RECONNECT_MS / 1000} s`);
    lastWords = words;
    if (!(await pause(RECONNECT_MS, stop))) return undefined;
  }
}

/** Resolves true after `ms`, or false as soon as `stop` aborts. */
function pause(ms: number, stop: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (stop.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      stop.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    stop.addEventListener('abort', onAbort, { once: true });
  });
}
