// What every fuzz target holds each input to (CONTRACT 18): it ends as exactly one accepted item
// or one counted rejection. A broken rule throws a Finding; any other exception escaping the code
// under test is a finding too (Jazzer keeps the input that raised it).

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

/** A fake of the one broker connection method the MQTT sources use: the handler they subscribe. */
export function fakeConnection() {
  const handlers = [];
  return {
    connection: {
      subscribe(_filter, onMessage) {
        handlers.push(onMessage);
      },
    },
    publish(topic, payload) {
      for (const handler of handlers) handler(topic, payload);
    },
  };
}

/** The counters' movement over one message: `announcements` exactly once, `dropped` once or not. */
export function expectCounted(counters, before, dropped, what) {
  expect(counters.announcements === before.announcements + 1, `${what}: announcements moved by ${counters.announcements - before.announcements}, not 1`);
  const moved = counters.dropped - before.dropped;
  expect(moved === (dropped ? 1 : 0), `${what}: dropped moved by ${moved}, expected ${dropped ? 1 : 0}`);
}

export const json = (value) => Buffer.from(JSON.stringify(value));
