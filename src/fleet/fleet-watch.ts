import { messageOf } from '../errors.js';
import { subscribeAll } from './central-connection.js';
import type { CentralSettings } from './central-input.js';
import { FLEET_FILTERS } from './central-topics.js';
import { openCentral } from './central-reader.js';
import { FleetFacts } from './hub-facts.js';
import { rowOf, rowSignature, type HubRow } from './hub-row.js';
import { rowsOf } from './fleet-snapshot.js';

// `fleet --watch`: every hub's row once the retained copies are in, worst first, then a row each
// time a hub's row changes, as the change arrives. Rows also age: a timer judges every hub again,
// so one whose health stops coming is printed when it turns stale, without a message.

/** How often every row is judged again: a hub turns stale within this of its third missed minute. */
export const STALE_CHECK_MS = 5_000;
/** Between attempts to reach the central broker again after losing it. */
export const RECONNECT_MS = 5_000;

export interface WatchOutput {
  /** A hub's row, new or changed, judged at wall-clock `now`. */
  row(row: HubRow, now: number): void;
  /** The connection lost or back, for stderr. */
  note(text: string): void;
}

/** Runs until `stop` aborts; throws as `fleet` does when the first connection fails. */
export async function watchFleet(settings: CentralSettings, output: WatchOutput, stop: AbortSignal): Promise<void> {
  const facts = new FleetFacts();
  const printed = new Map<string, string>();
  let started = false;
  const show = (row: HubRow, now: number): void => {
    const signature = rowSignature(row);
    if (printed.get(row.hub) === signature) return;
    printed.set(row.hub, signature);
    output.row(row, now);
  };
  const reader = await openCentral(settings, (message) => {
    const now = Date.now();
    const hubId = facts.take(message.topic, message.payload, !message.retained, now);
    if (!started || hubId === undefined) return;
    const hub = facts.hubs.get(hubId);
    if (hub === undefined) printed.delete(hubId);
    else show(rowOf(hub, now), now);
  });
  const { client } = reader.connection;
  const closed = new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
  try {
    await Promise.race([reader.retainedRead, closed]);
    if (stop.aborted) return;
    started = true;
    const now = Date.now();
    for (const row of rowsOf(facts, now)) show(row, now);
    // From here a lost broker is reached again, and re-sends its retained copies: only changes print.
    client.options.reconnectPeriod = RECONNECT_MS;
    let away = false;
    client.on('close', () => {
      if (away || stop.aborted) return;
      away = true;
      output.note(`lost the central broker at ${settings.address}; trying again every ${RECONNECT_MS / 1000} s`);
    });
    client.on('connect', () => {
      if (!away) return;
      away = false;
      output.note(`connected again to the central broker at ${settings.address}`);
      // mqtt.js subscribes again by itself only to what was subscribed with reconnects on, which
      // the first read is not (a first connection that fails must fail, not retry).
      subscribeAll(reader.connection, FLEET_FILTERS, settings.address).catch((error: unknown) => output.note(messageOf(error)));
    });
    const timer = setInterval(() => {
      const at = Date.now();
      for (const row of rowsOf(facts, at)) show(row, at);
    }, STALE_CHECK_MS);
    await closed;
    clearInterval(timer);
  } finally {
    await reader.close();
  }
}
