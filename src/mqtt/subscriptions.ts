import { PanicPairError } from '../errors.js';

/**
 * `retained`: the broker sent it from its store at a new subscription, not as it was published:
 * it says nothing of when its publisher was last heard.
 */
export type MessageHandler = (topic: string, payload: Buffer, retained?: boolean) => void;

const SLASH = 47;
const PLUS = 43;
const HASH = 35;
const DOLLAR = 36;

// Which handlers a message goes to. Runs once per message, so it allocates nothing: exact topics
// (the daemon's own announce topic) are one Map lookup; wildcard filters (gateways) are matched
// character by character without splitting the topic.
export class SubscriptionTable {
  readonly #exact = new Map<string, MessageHandler[]>();
  readonly #wildcards: Array<{ filter: string; handlers: MessageHandler[] }> = [];
  /**
   * The exact topic that matched last, and its handlers. A burst comes on one topic, and every
   * message's topic is a fresh string: comparing it with this one is cheaper than hashing it.
   */
  #lastTopic: string | undefined;
  #lastHandlers: MessageHandler[] | undefined;

  /** Remembers the handler; returns true when the filter is new (and must be sent to the broker). */
  add(filter: string, handler: MessageHandler): boolean {
    assertValidFilter(filter);
    if (!hasWildcard(filter)) {
      const handlers = this.#exact.get(filter);
      if (handlers) handlers.push(handler);
      else this.#exact.set(filter, [handler]);
      return handlers === undefined;
    }
    const entry = this.#wildcards.find((candidate) => candidate.filter === filter);
    if (entry) entry.handlers.push(handler);
    else this.#wildcards.push({ filter, handlers: [handler] });
    return entry === undefined;
  }

  filters(): string[] {
    return [...this.#exact.keys(), ...this.#wildcards.map((entry) => entry.filter)];
  }

  /** Calls every handler whose filter matches; `onError` hears a handler that threw. */
  dispatch(topic: string, payload: Buffer, onError: (error: unknown, topic: string) => void, retained = false): void {
    let handlers = topic === this.#lastTopic ? this.#lastHandlers : undefined;
    if (handlers === undefined) {
      handlers = this.#exact.get(topic);
      if (handlers !== undefined) {
        this.#lastTopic = topic;
        this.#lastHandlers = handlers;
      }
    }
    if (handlers !== undefined) callAll(handlers, topic, payload, onError, retained);
    for (let i = 0; i < this.#wildcards.length; i++) {
      const entry = this.#wildcards[i]!;
      if (topicMatches(entry.filter, topic)) callAll(entry.handlers, topic, payload, onError, retained);
    }
  }
}

function callAll(handlers: MessageHandler[], topic: string, payload: Buffer, onError: (error: unknown, topic: string) => void, retained: boolean): void {
  for (let i = 0; i < handlers.length; i++) {
    try {
      handlers[i]!(topic, payload, retained);
    } catch (error) {
      onError(error, topic);
    }
  }
}

function hasWildcard(filter: string): boolean {
  return filter.includes('+') || filter.includes('#');
}

function assertValidFilter(filter: string): void {
  const levels = filter.split('/');
  const valid =
    filter.length > 0 &&
    levels.every((level, index) => {
      if (level === '#') return index === levels.length - 1;
      return level === '+' || (!level.includes('+') && !level.includes('#'));
    });
  if (!valid) {
    throw new PanicPairError('config', `MQTT topic filter ${JSON.stringify(filter)} is not valid: '+' and '#' must fill a whole level, '#' only the last`);
  }
}

/** MQTT topic matching for a valid filter: `+` is one level, `#` the rest (parent included). */
export function topicMatches(filter: string, topic: string): boolean {
  const first = filter.charCodeAt(0);
  // Topics starting with `$` (broker internals) are not matched by a leading wildcard.
  if (topic.charCodeAt(0) === DOLLAR && (first === PLUS || first === HASH)) return false;
  const filterLength = filter.length;
  const topicLength = topic.length;
  let f = 0;
  let t = 0;
  while (f < filterLength) {
    const c = filter.charCodeAt(f);
    if (c === HASH) return true;
    if (c === PLUS) {
      while (t < topicLength && topic.charCodeAt(t) !== SLASH) t++;
      f++;
    } else {
      while (f < filterLength && filter.charCodeAt(f) !== SLASH) {
        if (t >= topicLength || topic.charCodeAt(t) !== filter.charCodeAt(f)) return false;
        f++;
        t++;
      }
      if (t < topicLength && topic.charCodeAt(t) !== SLASH) return false;
    }
    // Both sit at the end of a level: a `/` or the end of the string.
    if (f === filterLength) return t === topicLength;
    f++;
    if (t === topicLength) return filter.charCodeAt(f) === HASH && f + 1 === filterLength;
    t++;
  }
  return t === topicLength;
}
