import type { ButtonCounts } from '../supervision/types.js';
import { rollbackProblem, type UpdateOutcome } from '../update/words.js';
import type { HubFacts } from './hub-facts.js';
import { NO_PROBLEMS, type HubHealth } from './hub-health.js';
import { clockTime, durationWords, shownId } from './words.js';

// One row a hub, from what the central broker said about it, and the
// order an operator reads them in. Pure: the wall clock is passed in, as `now`.

/**
 * Worst first: the order of `fleet`'s rows, and of this list. A hub rolled back to its version
 * before runs, but a release failed on it: it comes before the merely
 * unhealthy, whose problems are the site's.
 */
export const HUB_STATES = ['offline', 'stale', 'unreadable', 'rolled-back', 'unhealthy', 'healthy'] as const;
export type HubState = (typeof HUB_STATES)[number];

/**
 * A live daemon refreshes its health at least once a minute (src/mqtt/health-publisher.ts): three
 * refreshes missed is a hub stuck or cut off without a word (a bridge that has not yet noticed).
 */
export const STALE_AFTER_MS = 3 * 60_000;

/** Why the row is in its state, as a word a script can match. */
export type RowCause =
  | 'bridge-down' // the bridge's notification is 0: the hub's link to the central broker is down
  | 'daemon-offline' // the daemon's status is offline: stopped, or dead (its last will)
  | 'health-old' // the last health is older than STALE_AFTER_MS
  | 'no-health' // status or bridge, but no readable health yet
  | 'bad-id' // the topic level is not a hub id
  | 'bad-health' // the health is not JSON or breaks the schema
  | 'bad-status' // the status is neither online nor offline
  | 'bad-bridge' // the bridge state is neither 1 nor 0
  | 'rolled-back' // the hub's latest update was rolled back to the version before
  | 'problems' // the hub reports problems
  | 'none';

export interface HubRow {
  hub: string;
  state: HubState;
  cause: RowCause;
  /** The words an operator needs: "its bridge went down 14:02", the hub's problems. */
  reason: string;
  version: string | null;
  buttons: Readonly<ButtonCounts> | null;
  problems: readonly string[];
  /** The last readable health's `at`. */
  healthAt: string | null;
  uptimeSeconds: number | null;
  /** The daemon's `status`, the bridge's state, as read (null: none, or unreadable). */
  daemon: 'online' | 'offline' | null;
  bridge: 'up' | 'down' | null;
  /** Where its latest update stands, as its health says; null when it says none. */
  update: Readonly<UpdateOutcome> | null;
}

interface Verdict {
  state: HubState;
  cause: RowCause;
  reason: string;
}

export function rowOf(hub: HubFacts, now: number): HubRow {
  const health = hub.health?.reading.ok === true ? hub.health.reading.health : undefined;
  const daemon = hub.status?.reading.ok === true ? hub.status.reading.value : null;
  const bridge = hub.bridge?.reading.ok === true ? hub.bridge.reading.value : null;
  const verdict = verdictOf(hub, health, now);
  return {
    hub: hub.hubId,
    ...verdict,
    version: health?.version ?? null,
    buttons: health?.buttons ?? null,
    problems: health?.problems ?? NO_PROBLEMS,
    healthAt: health?.at ?? null,
    uptimeSeconds: health?.uptimeSeconds ?? null,
    daemon,
    bridge,
    update: health?.update ?? null,
  };
}

function verdictOf(hub: HubFacts, health: HubHealth | undefined, now: number): Verdict {
  const lastHealth = health === undefined ? 'no health seen' : `last health ${clockTime(health.atMs, now)}`;
  // The bridge first: centrally, a dead bridge leaves the daemon's `online` standing
  // (docs/operator/monitoring.md).
  if (hub.bridge?.reading.ok === true && hub.bridge.reading.value === 'down') {
    const { changedAt } = hub.bridge;
    const reason = changedAt === null ? `its bridge is down; ${lastHealth}` : `its bridge went down ${clockTime(changedAt, now)}`;
    return { state: 'offline', cause: 'bridge-down', reason };
  }
  if (hub.status?.reading.ok === true && hub.status.reading.value === 'offline') {
    const { changedAt } = hub.status;
    const reason =
      changedAt === null
        ? `its daemon is not running (stopped, or died: its last will); ${lastHealth}`
        : `its daemon went offline ${clockTime(changedAt, now)} (stopped, or died: its last will)`;
    return { state: 'offline', cause: 'daemon-offline', reason };
  }
  if (health !== undefined && now - health.atMs > STALE_AFTER_MS) {
    return { state: 'stale', cause: 'health-old', reason: `no health for ${durationWords(now - health.atMs)} (${lastHealth}): the hub or its link may be stuck` };
  }
  const unreadable = unreadableVerdict(hub);
  if (unreadable !== undefined) return unreadable;
  if (health === undefined) {
    return { state: 'stale', cause: 'no-health', reason: 'no health received: its daemon has published none (or one too large for this reader)' };
  }
  if (health.update?.state === 'rolled-back') {
    // The hub's own words, the rollback among them; a hub that names none still says which.
    const reason = health.problems.length === 0 ? rollbackProblem(health.update) : health.problems.join('; ');
    return { state: 'rolled-back', cause: 'rolled-back', reason };
  }
  if (!health.healthy || health.problems.length > 0) {
    const reason = health.problems.length === 0 ? 'reports itself unhealthy, naming no problem' : health.problems.join('; ');
    return { state: 'unhealthy', cause: 'problems', reason };
  }
  return { state: 'healthy', cause: 'none', reason: `up ${durationWords(health.uptimeSeconds * 1000)}` };
}

function unreadableVerdict(hub: HubFacts): Verdict | undefined {
  if (!hub.validId) return { state: 'unreadable', cause: 'bad-id', reason: `not a hub id: ${shownId(hub.hubId)} (hub ids are 1 to 64 of A-Z a-z 0-9 . _ -)` };
  if (hub.health?.reading.ok === false) return { state: 'unreadable', cause: 'bad-health', reason: `unreadable health: ${hub.health.reading.why}` };
  if (hub.status?.reading.ok === false) return { state: 'unreadable', cause: 'bad-status', reason: `unreadable status: ${hub.status.reading.why} (expected online or offline)` };
  if (hub.bridge?.reading.ok === false) return { state: 'unreadable', cause: 'bad-bridge', reason: `unreadable bridge state: ${hub.bridge.reading.why} (expected 1 or 0)` };
  return undefined;
}

/** Offline, stale, unreadable, rolled back, unhealthy, healthy; within a state by hub id. */
export function worstFirst(a: HubRow, b: HubRow): number {
  const byState = HUB_STATES.indexOf(a.state) - HUB_STATES.indexOf(b.state);
  if (byState !== 0) return byState;
  return a.hub < b.hub ? -1 : a.hub > b.hub ? 1 : 0;
}

/** What `--watch` compares: everything but the words that only age (durations, "ago"). */
export function rowSignature(row: HubRow): string {
  return JSON.stringify([row.state, row.cause, row.version, row.buttons, row.problems, row.daemon, row.bridge, row.update]);
}
