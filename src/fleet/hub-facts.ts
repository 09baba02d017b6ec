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

function word<T extends string>(payload: Buffer, words: Record<string, T>): Word<T> {
  const text = payload.toString('utf8');
  const value = Object.hasOwn(words, text) ? words[text] : undefined;
  if (value !== undefined) return { ok: true, value };
  const shown = JSON.stringify(text.length > SHOWN_BYTES ? `${text.slice(0, SHOWN_BYTES)}...` : text);
  return { ok: false, why: payload.length > SHOWN_BYTES ? `${shown} (${payload.length} bytes)` : shown };
}

const STATUS_WORDS = { online: 'online', offline: 'offline' } as const;
const BRIDGE_WORDS = { '1': 'up', '0': 'down' } as const;

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
      hub = { hubId, validId: isHubId(hubId) };
      this.hubs.set(hubId, hub);
    }
    if (payload.length === 0) {
      delete hub[kind];
      if (hub.health === undefined && hub.status === undefined && hub.bridge === undefined) this.hubs.delete(hubId);
      return hubId;
    }
    const changedAt = live ? now : null;
    if (kind === 'health') hub.health = { reading: readHealth(payload), changedAt };
    else if (kind === 'status') hub.status = keepSince(hub.status, word(payload, STATUS_WORDS), changedAt);
    else hub.bridge = keepSince(hub.bridge, word(payload, BRIDGE_WORDS), changedAt);
    return hubId;
  }
}

/** The same word said again keeps the time it first changed to it. */
function keepSince<T extends string>(before: Fact<Word<T>> | undefined, reading: Word<T>, changedAt: number | null): Fact<Word<T>> {
  const same = before !== undefined && before.reading.ok && reading.ok && before.reading.value === reading.value;
  return same ? before : { reading, changedAt };
}
