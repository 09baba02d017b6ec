import type { CentralSettings } from './central-input.js';
import { openCentral, type RetainedEnd } from './central-reader.js';
import { FleetFacts, type HubFacts } from './hub-facts.js';
import { HUB_STATES, rowOf, worstFirst, type HubRow } from './hub-row.js';

// `fleet` without --watch: every hub's row from the central broker's retained copies, worst first.

export interface FleetSnapshot {
  rows: SnapshotRows;
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
  const at = Date.now();
  return { rows: new SnapshotRows(facts, at), end, at };
}

/**
 * The rows worst first, each made when a part of them is asked for: `--json` writes 100,000
 * rows a few hundred at a time, so they are never all held beside the facts they come from
 * (about 360 bytes a row; docs/reference/performance.md). An array of rows
 * answers the same `length` and `slice`.
 */
export class SnapshotRows {
  readonly length: number;
  /** Every row healthy (and at least one). */
  readonly allHealthy: boolean;
  readonly #hubs: HubFacts[];
  readonly #at: number;

  constructor(facts: FleetFacts, at: number) {
    const hubs = [...facts.hubs.values()];
    // Each hub's state once, for the order; its row is made again when written.
    const ranks = new Uint8Array(hubs.length);
    for (let i = 0; i < hubs.length; i++) ranks[i] = HUB_STATES.indexOf(rowOf(hubs[i]!, at).state);
    const order = Uint32Array.from(hubs.keys()).sort((a, b) => ranks[a]! - ranks[b]! || byId(hubs[a]!.hubId, hubs[b]!.hubId));
    this.#hubs = Array.from(order, (i) => hubs[i]!);
    this.#at = at;
    this.length = hubs.length;
    this.allHealthy = hubs.length > 0 && ranks.every((rank) => rank === HUB_STATES.indexOf('healthy'));
  }

  slice(from = 0, to = this.length): HubRow[] {
    return this.#hubs.slice(from, to).map((hub) => rowOf(hub, this.#at));
  }
}

function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function rowsOf(facts: FleetFacts, now: number): HubRow[] {
  return [...facts.hubs.values()].map((hub) => rowOf(hub, now)).sort(worstFirst);
}
