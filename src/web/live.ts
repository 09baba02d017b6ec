// The page's live channel: a long response of newline-delimited JSON snapshots, pushed whenever
// something changes (coalesced) and every few seconds regardless, so a phone can tell a quiet hub
// from a dead connection. A whole snapshot each time rather than deltas: a phone that reconnects
// never pieces together stale parts, and a hub has few buttons.
import type { ServerResponse } from 'node:http';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { DeviceRow } from '../supervision/types.js';
import { livenessOf, statusContext, type SupervisionContext } from '../supervision/words.js';
import { pageStatus } from './page-health.js';
import type { PageActivity } from './activity.js';
import type { HouseholdMember, PageHandlers } from './port.js';

/** At most one snapshot in this time: the first change goes out at once, later ones together. */
const COALESCE_MS = 100;
/** A snapshot at least this often; the page counts itself not live after a few missed. */
export const LIVE_BEAT_MS = 5_000;
/** "Buttons heard now": within the last minute, the strongest first, at most this many. */
const HEARD_WITHIN_MS = 60_000;
const HEARD_SHOWN = 30;
const MAX_LISTENERS = 16;
/** The household is asked of the engine (which asks the API within its TTL) at most this often. */
const HOUSEHOLD_EVERY_MS = 60_000;

export class LiveChannel {
  /** Each open channel, with whether its session still holds (ended at sign-out or when idle). */
  readonly #listeners = new Map<ServerResponse, () => boolean>();
  #pending: NodeJS.Timeout | undefined;
  #lastSent = -Infinity;
  #household: HouseholdMember[] = [];
  #householdAsked = -Infinity;
  readonly #beat: NodeJS.Timeout;

  constructor(
    private readonly handlers: PageHandlers,
    private readonly activity: PageActivity,
    private readonly logger: Logger,
  ) {
    this.#beat = setInterval(() => this.#send(), LIVE_BEAT_MS);
    this.#beat.unref();
  }

  /** Asks the engine for the household again (a page connected, entitlement changed, a minute passed). */
  refreshHousehold(): void {
    this.#householdAsked = performance.now();
    this.handlers.household().then(
      (members) => {
        this.#household = members;
        this.changed();
      },
      (error: unknown) => this.logger.warn({ err: messageOf(error) }, 'page: the household could not be asked'),
    );
  }

  /** Something changed: a snapshot goes out shortly, once for all the changes meanwhile. */
  changed(): void {
    if (this.#listeners.size === 0 || this.#pending !== undefined) return;
    const wait = Math.max(0, this.#lastSent + COALESCE_MS - performance.now());
    this.#pending = setTimeout(() => this.#send(), wait);
  }

  /** Takes over a response that passed every guard. */
  listen(response: ServerResponse, sessionLive: () => boolean): boolean {
    if (this.#listeners.size >= MAX_LISTENERS) return false;
    response.writeHead(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    this.#listeners.set(response, sessionLive);
    response.on('close', () => this.#listeners.delete(response));
    response.write(this.#line());
    this.refreshHousehold();
    return true;
  }

  close(): void {
    clearInterval(this.#beat);
    clearTimeout(this.#pending);
    for (const response of this.#listeners.keys()) response.end();
    this.#listeners.clear();
  }

  #send(): void {
    clearTimeout(this.#pending);
    this.#pending = undefined;
    if (this.#listeners.size === 0) return;
    this.#lastSent = performance.now();
    if (this.#lastSent - this.#householdAsked > HOUSEHOLD_EVERY_MS) this.refreshHousehold();
    let line: string;
    try {
      line = this.#line();
    } catch (error) {
      this.logger.error({ err: error }, 'page: snapshot failed');
      return;
    }
    for (const [response, sessionLive] of this.#listeners) {
      // A session that ended (sign-out, 30 idle minutes) gets nothing more: the page then finds
      // itself signed out when it reconnects.
      if (sessionLive()) response.write(line);
      else response.end();
    }
  }

  #line(): string {
    return `${JSON.stringify(this.snapshot())}\n`;
  }

  snapshot() {
    const heard = this.handlers
      .heard(HEARD_WITHIN_MS)
      .sort((a, b) => (b.rssi ?? -1000) - (a.rssi ?? -1000) || a.ageMs - b.ageMs)
      .slice(0, HEARD_SHOWN);
    const status = this.handlers.status();
    const rows = this.handlers.devices();
    const now = Date.now();
    const devices = deviceViews(rows, now, statusContext(status));
    return {
      type: 'snapshot' as const,
      status: pageStatus(status, rows, now),
      household: this.#household,
      heard,
      devices,
      pairings: this.activity.pairings(),
      window: this.activity.window() ?? null,
      check: this.activity.lastCheck() ?? null,
    };
  }
}

/**
 * A device as the page shows it: its state and numbers, never the store's English error. A linked
 * button's silence is measured here, on the hub's clock (`heardAgoMs`), so a phone whose clock is
 * off still says "heard 3 min ago" right; the page words it in the installer's language.
 */
export type DeviceView = Omit<DeviceRow, 'error'> & {
  heardAgoMs?: number | null;
  /** Missing or battery low: shown first, and as a problem in words. */
  problem?: boolean;
  /** No working source can hear it (its `unknown` says why). */
  deaf?: true;
  /** Supervision is off on this hub (its `unsupervised` says why). */
  supervisionOff?: true;
};

/** Buttons with a problem (missing, battery low) first, then the latest changed. */
export function deviceViews(rows: readonly DeviceRow[], nowWall: number, context: SupervisionContext): DeviceView[] {
  const views = rows.map(({ error: _error, ...row }): DeviceView => {
    const liveness = livenessOf({ ...row });
    if (liveness === undefined) return row;
    const heard = liveness.lastHeard === null ? Number.NaN : Date.parse(liveness.lastHeard);
    return {
      ...row,
      // A wall clock set back puts a report "in the future": just now, never a negative age.
      heardAgoMs: Number.isNaN(heard) ? null : Math.max(0, nowWall - heard),
      problem: liveness.supervision === 'missing' || liveness.batteryLow,
      ...(context.hearing === false ? { deaf: true as const } : {}),
      ...(context.supervisionOff ? { supervisionOff: true as const } : {}),
    };
  });
  const problem = (view: DeviceView): number => (view.problem ? 0 : 1);
  return views.sort((a, b) => problem(a) - problem(b) || b.updatedAt.localeCompare(a.updatedAt));
}
