// What every fuzz target holds each input to: it ends as exactly one accepted item
// or one counted rejection. A broken rule throws a Finding; any other exception escaping the code
// under test is a finding too (Jazzer keeps the input that raised it).
import { topicMatches } from '../../../dist/mqtt/subscriptions.js';

export class Finding extends Error {
  name = 'Finding';
}

export function expect(condition, what) {
  if (!condition) throw new Finding(what);
}

/** Tallies of what the inputs became, for the runner's report. */
export function tally() {
  const counts = { accepted: 0, rejected: 0, ignored: 0 };
  return {
    counts,
    accepted: () => counts.accepted++,
    rejected: () => counts.rejected++,
    ignored: () => counts.ignored++,
  };
}

/** A fake of the broker connection the MQTT sources use: each message reaches the handlers whose
 * filter matches its topic, as a broker routes it (a source may subscribe several filters). */
export function fakeConnection() {
  const handlers = [];
  return {
    connection: {
      subscribe(filter, onMessage) {
        handlers.push({ filter, onMessage });
      },
    },
    /** Whether any source listens on the topic. */
    heard: (topic) => handlers.some((handler) => topicMatches(handler.filter, topic)),
    publish(topic, payload, retained = false) {
      for (const handler of [...handlers]) if (topicMatches(handler.filter, topic)) handler.onMessage(topic, payload, retained);
    },
  };
}

/** A battery on a sighting is a whole percent or absent: out of range never gets through. */
export function expectBattery(sighting) {
  expect(sighting.battery === undefined || (Number.isInteger(sighting.battery) && sighting.battery >= 0 && sighting.battery <= 100), 'a battery from 0 to 100');
  expect(sighting.batteryLow === undefined || typeof sighting.batteryLow === 'boolean', 'batteryLow true or false');
}

/** The counters' movement over one message: `announcements` exactly once, `dropped` once or not. */
export function expectCounted(counters, before, dropped, what) {
  expect(counters.announcements === before.announcements + 1, `${what}: announcements moved by ${counters.announcements - before.announcements}, not 1`);
  const moved = counters.dropped - before.dropped;
  expect(moved === (dropped ? 1 : 0), `${what}: dropped moved by ${moved}, expected ${dropped ? 1 : 0}`);
}

export const json = (value) => Buffer.from(JSON.stringify(value));
