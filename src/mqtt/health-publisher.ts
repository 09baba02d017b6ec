import { monotonicNow, wallNow, type MonotonicClock, type WallClock } from '../clock.js';
import type { HealthReading } from './health.js';
import type { MqttConnection } from './connection.js';
import { healthTopic, type HealthPayload } from './topics.js';

// `<prefix>/health` retained, on change and at most once a minute
// otherwise. The hub's state is sampled rather than hooked at each of its sources (BLE, broker,
// API, store, devices): one place decides, and a burst of changes (a bulk pairing) costs the
// central broker at most one message a sample.

/** How often the status is read and compared: a change reaches the fleet within a second, and
 * the reading is cheap (bench/fleet-load.mjs: the daemon at rest, this included, uses 0.03 % of
 * one core). */
export const HEALTH_SAMPLE_MS = 1_000;
/** The refresh when nothing changed: once a minute, so `at` and `uptimeSeconds`
 * show a live hub, and a central broker that lost its retained messages has them back soon. */
export const HEALTH_REFRESH_MS = 60_000;

export interface HealthClocks {
  monotonic: MonotonicClock;
  wall: WallClock;
}

interface Published {
  /** The reading without its uptime: what "changed" compares. */
  key: string;
  /** Monotonic time of the publish. */
  at: number;
}

/** Whether to publish now: nothing yet since (re)connecting, a change, or a minute since the last. */
export function healthDue(last: Published | undefined, key: string, now: number): boolean {
  return last === undefined || last.key !== key || now - last.at >= HEALTH_REFRESH_MS;
}

function keyOf(reading: HealthReading): string {
  const { uptimeSeconds: _uptime, ...rest } = reading;
  return JSON.stringify(rest);
}

export interface HealthPublisherOptions {
  connection: Pick<MqttConnection, 'state' | 'publishRetained'>;
  prefix: string;
  read: () => HealthReading;
  clocks?: HealthClocks;
}

export class HealthPublisher {
  private last: Published | undefined;
  private readonly clocks: HealthClocks;
  private readonly topic: string;

  constructor(private readonly options: HealthPublisherOptions) {
    this.clocks = options.clocks ?? { monotonic: monotonicNow, wall: wallNow };
    this.topic = healthTopic(options.prefix);
  }

  /** Reads the hub's health and publishes it when due; true when it did. */
  sample(): boolean {
    // Nothing published while the broker is away: it would be stale by the time it arrived, and
    // the (re)connect publishes the current one at once.
    if (this.options.connection.state() !== 'connected') {
      this.last = undefined;
      return false;
    }
    const reading = this.options.read();
    const key = keyOf(reading);
    const now = this.clocks.monotonic();
    if (!healthDue(this.last, key, now)) return false;
    const payload: HealthPayload = { ...reading, at: new Date(this.clocks.wall()).toISOString() };
    this.options.connection.publishRetained(this.topic, JSON.stringify(payload));
    this.last = { key, at: now };
    return true;
  }
}

/** Samples every HEALTH_SAMPLE_MS, and at once on each (re)connect; returns the way to stop. */
export function startHealthPublisher(options: HealthPublisherOptions & { connection: Pick<MqttConnection, 'onStateChange'> }): () => void {
  const publisher = new HealthPublisher(options);
  let stopped = false;
  options.connection.onStateChange(() => {
    if (!stopped) publisher.sample();
  });
  publisher.sample();
  const timer = setInterval(() => publisher.sample(), HEALTH_SAMPLE_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
