import { isHubId } from './bridge-input.js';
import { hubTopicOf } from './central-topics.js';
import { readHealth, type HealthReading } from './hub-health.js';

// What the central broker has said about each hub: its health, its daemon's status and its
// bridge's state, each as last received. A retained copy says what is, not since when; a message
// that arrives while `fleet` reads (`--watch`) is a change seen as it happens, stamped then.

/** A status or bridge payload that is not one of its words: kept (short) to be shown. */
export type Word<T extends string> = { ok: true; value: T } | { ok: false; why: string };

export interface Fact<T> {
  reading: T;
  /** Wall-clock ms when it arrived as a live change; null for a retained copy (time unknown). */
  changedAt: number | null;
}

export interface HubFacts {
  hubId: string;
  /** A topic level `bridge-config` could have made: 1 to 64 of A-Z a-z 0-9 . _ - */
  validId: boolean;
  health?: Fact<HealthReading>;
  status?: Fact<Word<'online' | 'offline'>>;
  bridge?: Fact<Word<'up' | 'down'>>;
}

/** The most of a bad payload shown back, so a hostile one cannot fill a screen. */
const SHOWN_BYTES = 40;

interface KnownWord<T extends string> {
  reading: Word<T>;
  /** The word as a retained copy says it (its time unknown). */
  retained: Fact<Word<T>>;
}

/**
 * Each word's reading and retained fact, one object each for the whole fleet rather than two a
 * hub: for 100,000 hubs' status and bridge, four objects rather than 400,000
 * (docs/reference/performance.md). Frozen, since they are shared.
 */
function known<T extends string>(words: Record<string, T>): Map<string, KnownWord<T>> {
  const byText = new Map<string, KnownWord<T>>();
  for (const [text, value] of Object.entries(words)) {
    const reading: Word<T> = Object.freeze({ ok: true, value });
    byText.set(text, { reading, retained: Object.freeze({ reading, changedAt: null }) });
  }
  return byText;
}

const STATUS_WORDS = known<'online' | 'offline'>({ online: 'online', offline: 'offline' });
const BRIDGE_WORDS = known<'up' | 'down'>({ '1': 'up', '0': 'down' });

function wordFact<T extends string>(before: Fact<Word<T>> | undefined, payload: Buffer, words: Map<string, KnownWord<T>>, changedAt: number | null): Fact<Word<T>> {
  const text = payload.toString('utf8');
  const entry = words.get(text);
  if (entry === undefined) {
    const shown = JSON.stringify(text.length > SHOWN_BYTES ? `${text.slice(0, SHOWN_BYTES)}...` : text);
    return { reading: { ok: false, why: payload.length > SHOWN_BYTES ? `${shown} (${payload.length} bytes)` : shown }, changedAt };
  }
  // The same word said again keeps the time it first changed to it (readings are shared).
  if (before?.reading === entry.reading) return before;
  return changedAt === null ? entry.retained : { reading: entry.reading, changedAt };
}

export class FleetFacts {
  readonly hubs = new Map<string, HubFacts>();

  /**
   * Takes one message; returns the hub it concerns, or undefined for a topic outside the three.
   * An empty payload is a retained message cleared: that fact is forgotten.
   */
  take(topic: string, payload: Buffer, live: boolean, now: number): string | undefined {
    const where = hubTopicOf(topic);
    if (where === undefined) return undefined;
    const { hubId, kind } = where;
    let hub = this.hubs.get(hubId);
    if (hub === undefined) {
      // Every field from the start, and none deleted: the object keeps one shape, its fields
      // inside it, rather than a second store for the fields added later.
      hub = { hubId, validId: isHubId(hubId), health: undefined, status: undefined, bridge: undefined };
      this.hubs.set(hubId, hub);
    }
    if (payload.length === 0) {
      hub[kind] = undefined;
      if (hub.health === undefined && hub.status === undefined && hub.bridge === undefined) this.hubs.delete(hubId);
      return hubId;
    }
    const changedAt = live ? now : null;
    if (kind === 'health') hub.health = { reading: readHealth(payload), changedAt };
    else if (kind === 'status') hub.status = wordFact(hub.status, payload, STATUS_WORDS, changedAt);
    else hub.bridge = wordFact(hub.bridge, payload, BRIDGE_WORDS, changedAt);
    return hubId;
  }
}
