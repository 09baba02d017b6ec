import { PanicPairError } from '../errors.js';
import { isRefusal } from '../mqtt/broker-answers.js';
import { connectCentral, subscribeAll, subscribeCodes, type CentralConnection } from './central-connection.js';
import type { CentralSettings } from './central-input.js';
import { FLEET_FILTERS } from './central-topics.js';

// Reads the fleet's three retained topics from the central broker, and knows when it has them all.
//
// MQTT has no end-of-retained marker. The broker sends its retained copies after the SUBACK;
// mosquitto queues every one of them for this client before it reads the client's next packet. So
// once subscribed, the reader publishes a marker to a topic of its own (subscribed first): when
// the marker comes back, every retained copy mosquitto queued before it has arrived. Other brokers
// promise no such order (aedes streams its retained copies beside later traffic: the marker came
// back with a third of 2,000 hubs read), so the marker ends the read only once the retained copies
// have also paused for SETTLE_MS. A broker whose ACL refuses the marker (an MQTT 5 PUBACK
// refusal) leaves the quiet rule alone: no retained copy for QUIET_MS. A marker accepted but never
// seen (a 3.1.1 broker drops a refused publish in silence) falls back on it after MARKER_GRACE_MS.
// READ_LIMIT_MS bounds it all. docs/operator/monitoring.md and docs/reference/performance.md say
// what this costs.

/** With the marker back, retained copies paused this long: the burst is over. */
export const SETTLE_MS = 500;
/** Retained copies stopped this long: the burst is over (the marker refused). */
export const QUIET_MS = 1_000;
/** The marker accepted but not back, retained copies stopped this long: it was dropped. */
export const MARKER_GRACE_MS = 5_000;
/** Longest wait for the retained copies; what came by then is shown, with a warning. */
export const READ_LIMIT_MS = 60_000;
const POLL_MS = 50;

export interface CentralMessage {
  topic: string;
  payload: Buffer;
  /** A stored retained copy (true), or a change published while the reader reads (false). */
  retained: boolean;
}

export interface RetainedEnd {
  by: 'marker' | 'quiet' | 'limit';
  /** Retained copies received. */
  count: number;
  ms: number;
}

export interface CentralReader {
  connection: CentralConnection;
  /** Resolves once every retained copy has arrived (see above). */
  retainedRead: Promise<RetainedEnd>;
  close(): Promise<void>;
}

export async function openCentral(settings: CentralSettings, onMessage: (message: CentralMessage) => void): Promise<CentralReader> {
  const connection = await connectCentral(settings);
  const { client, clientId } = connection;
  const marker = `panic-pair-fleet/${clientId}`;
  const started = performance.now();
  let lastRetained = started;
  let count = 0;
  let markerBack = false;
  let lost = false;
  // mqtt.js never calls back a QoS 1 publish whose connection closed (it keeps it to send again):
  // everything awaited here is raced with this, or a reader cut off would wait on nothing, Node
  // would find nothing left to run, and `fleet` would exit 0 having printed nothing.
  const closed = new Promise<false>((resolve) =>
    client.once('close', () => {
      lost = true;
      resolve(false);
    }),
  );
  const lostError = (): PanicPairError =>
    new PanicPairError(
      'config',
      `the central broker at ${settings.address} closed the connection while sending its retained messages: check its log, and --central (NATS Server cuts a reader that takes longer than its write_deadline, 10 s by default, to take them: "Slow Consumer Detected"; raise it for a fleet this size, or run the reader where it has a CPU to itself)`,
    );
  // Errors end in `close`, which says what matters here; an unheard `error` would throw.
  client.on('error', () => undefined);
  client.on('message', (topic, payload, packet) => {
    if (topic === marker) {
      markerBack = true;
      return;
    }
    if (packet.retain) {
      lastRetained = performance.now();
      count++;
    }
    onMessage({ topic, payload, retained: packet.retain });
  });
  const close = (): Promise<void> => new Promise((resolve) => client.end(true, {}, () => resolve()));
  let markerSubscribed: boolean;
  try {
    // The marker's subscription first, so it is in place before the marker is published.
    const orLost = <T>(step: Promise<T>): Promise<T> => Promise.race([step, closed.then((): never => { throw lostError(); })]);
    markerSubscribed = !isRefusal((await orLost(subscribeCodes(connection, [marker])))[0]);
    await orLost(subscribeAll(connection, FLEET_FILTERS, settings.address));
  } catch (error) {
    await close();
    // A subscription cut short by a closed connection is not refused (mqtt.js calls it back with an error).
    throw lost ? lostError() : error;
  }
  const markerAccepted = !markerSubscribed
    ? Promise.resolve(false)
    : Promise.race([closed, new Promise<boolean>((resolve) => client.publish(marker, 'read', { qos: 1 }, (error) => resolve(error === undefined || error === null)))]);
  const retainedRead = (async (): Promise<RetainedEnd> => {
    const accepted = await markerAccepted;
    for (;;) {
      const now = performance.now();
      const end = (by: RetainedEnd['by']): RetainedEnd => ({ by, count, ms: Math.round(now - started) });
      const quiet = now - lastRetained;
      if (markerBack && quiet >= SETTLE_MS) return end('marker');
      if (lost) throw lostError();
      if (quiet >= (accepted ? MARKER_GRACE_MS : QUIET_MS)) return end('quiet');
      if (now - started >= READ_LIMIT_MS) return end('limit');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  return { connection, retainedRead, close };
}
