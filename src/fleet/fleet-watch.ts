import type { CentralSettings } from './central-input.js';
import { openCentral, type CentralMessage, type CentralReader } from './central-reader.js';
import { fromFirstAnswering } from './first-answering.js';
import { FleetFacts } from './hub-facts.js';
import { rowOf, rowSignature, type HubRow } from './hub-row.js';
import { rowsOf } from './fleet-snapshot.js';
import { RECONNECT_MS, reachAgain } from './node-failover.js';

// `fleet --watch`: every hub's row once the retained copies are in, worst first, then a row each
// time a hub's row changes, as the change arrives. Rows also age: a timer judges every hub again,
// so one whose health stops coming is printed when it turns stale, without a message. A node
// lost is left for the next one that answers (node-failover.ts), which sends its retained
// copies again: only the rows they change are printed.

/** How often every row is judged again: a hub turns stale within this of its third missed minute. */
export const STALE_CHECK_MS = 5_000;

export interface WatchOutput {
  /** A hub's row, new or changed, judged at wall-clock `now`. */
  row(row: HubRow, now: number): void;
  /** The connection lost or back, for stderr. */
  note(text: string): void;
}

/**
 * Runs until `stop` aborts; throws as `fleet` does when no node can be read at first (the first
 * read includes every retained copy: a node lost during it is left for the next).
 */
export async function watchFleet(nodes: readonly CentralSettings[], output: WatchOutput, stop: AbortSignal): Promise<void> {
  const facts = new FleetFacts();
  const printed = new Map<string, string>();
  let started = false;
  const show = (row: HubRow, now: number): void => {
    const signature = rowSignature(row);
    if (printed.get(row.hub) === signature) return;
    printed.set(row.hub, signature);
    output.row(row, now);
  };
  const onMessage = (message: CentralMessage): void => {
    const now = Date.now();
    const hubId = facts.take(message.topic, message.payload, !message.retained, now);
    if (!started || hubId === undefined) return;
    const hub = facts.hubs.get(hubId);
    if (hub === undefined) printed.delete(hubId);
    else show(rowOf(hub, now), now);
  };
  const stopped = new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
  let node = nodes[0]!;
  let reader: CentralReader = await fromFirstAnswering(nodes, async (candidate) => {
    const opened = await openCentral(candidate, onMessage);
    try {
      await Promise.race([opened.retainedRead, stopped]);
    } catch (error) {
      await opened.close();
      throw error;
    }
    node = candidate;
    return opened;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    if (stop.aborted) return;
    started = true;
    const now = Date.now();
    for (const row of rowsOf(facts, now)) show(row, now);
    timer = setInterval(() => {
      const at = Date.now();
      for (const row of rowsOf(facts, at)) show(row, at);
    }, STALE_CHECK_MS);
    for (;;) {
      await Promise.race([closeOf(reader), stopped]);
      if (stop.aborted) return;
      const lost = node;
      await reader.close();
      output.note(
        nodes.length === 1
          ? `lost the central broker at ${lost.address}; trying again every ${RECONNECT_MS / 1000} s`
          : `lost the central broker at ${lost.address}; trying the next node of the cluster that answers`,
      );
      const reached = await reachAgain(nodes, lost, (candidate) => openCentral(candidate, onMessage), (text) => output.note(text), stop);
      if (reached === undefined) return;
      ({ node, reader } = reached);
      output.note(
        node === lost ? `connected again to the central broker at ${node.address}` : `reading from the central broker at ${node.address} now, in place of ${lost.address}`,
      );
    }
  } finally {
    clearInterval(timer);
    await reader.close();
  }
}

/** Resolves when the reader's connection closes (it does not reconnect by itself). */
function closeOf(reader: CentralReader): Promise<void> {
  const { client } = reader.connection;
  return new Promise((resolve) => {
    if (!client.connected) return resolve();
    client.once('close', () => resolve());
  });
}
