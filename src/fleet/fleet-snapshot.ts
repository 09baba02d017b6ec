import type { CentralSettings } from './central-input.js';
import { openCentral, type RetainedEnd } from './central-reader.js';
import { FleetFacts } from './hub-facts.js';
import { rowOf, worstFirst, type HubRow } from './hub-row.js';

// `fleet` without --watch: every hub's row from the central broker's retained copies, worst first.

export interface FleetSnapshot {
  rows: HubRow[];
  end: RetainedEnd;
  /** Wall-clock ms the rows were judged at. */
  at: number;
}

export async function readFleet(settings: CentralSettings): Promise<FleetSnapshot> {
  const facts = new FleetFacts();
  const reader = await openCentral(settings, (message) => facts.take(message.topic, message.payload, !message.retained, Date.now()));
  let end: RetainedEnd;
  try {
    end = await reader.retainedRead;
  } finally {
    await reader.close();
  }
  return { rows: rowsOf(facts, Date.now()), end, at: Date.now() };
}

export function rowsOf(facts: FleetFacts, now: number): HubRow[] {
  return [...facts.hubs.values()].map((hub) => rowOf(hub, now)).sort(worstFirst);
}
