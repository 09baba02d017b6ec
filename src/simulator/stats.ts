import type { SimulatorRoute } from './faults.js';

export interface SimulatorStats {
  /** Requests that reached each API route, whatever the answer (401s and faults included). */
  requests: Record<SimulatorRoute, number>;
  /** `GET .../subscriptions` requests (the same as requests.subscriptions, named for readability). */
  subscriptionGets: number;
  /** `POST /devices` requests per `deviceId` the body carried, whatever the answer. */
  postsByDevice: Record<string, number>;
  /** The `customerId` of each valid `POST /devices` body per `deviceId`, in order: whose button each asked for. */
  customersByDevice: Record<string, number[]>;
  /** Successful links. */
  links: number;
  /** API requests being handled right now. */
  inFlight: number;
  /** The most API requests handled at once since the last reset. */
  maxInFlight: number;
}

type Counts = Omit<SimulatorStats, 'postsByDevice' | 'customersByDevice'>;

export class StatsCounter {
  #stats: Counts = StatsCounter.#empty();
  // A Map, not an object: a deviceId such as "__proto__" must count like any other.
  #posts = new Map<string, number>();
  #customers = new Map<string, number[]>();

  static #empty(): Counts {
    return {
      requests: { link: 0, subscriptions: 0 },
      subscriptionGets: 0,
      links: 0,
      inFlight: 0,
      maxInFlight: 0,
    };
  }

  /** Keeps requests still in flight counted, so a reset mid-test does not make the gauge negative. */
  reset(): void {
    const inFlight = this.#stats.inFlight;
    this.#stats = { ...StatsCounter.#empty(), inFlight, maxInFlight: inFlight };
    this.#posts = new Map();
    this.#customers = new Map();
  }

  /** Counts a request in; the returned function counts it out (once). */
  enter(route: SimulatorRoute): () => void {
    const stats = this.#stats;
    stats.requests[route] += 1;
    if (route === 'subscriptions') stats.subscriptionGets += 1;
    stats.inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#stats.inFlight -= 1;
    };
  }

  post(deviceId: string, customerId?: number): void {
    this.#posts.set(deviceId, (this.#posts.get(deviceId) ?? 0) + 1);
    if (customerId !== undefined) this.#customers.set(deviceId, [...(this.#customers.get(deviceId) ?? []), customerId]);
  }

  linked(): void {
    this.#stats.links += 1;
  }

  snapshot(): SimulatorStats {
    return {
      ...structuredClone(this.#stats),
      postsByDevice: Object.fromEntries(this.#posts),
      customersByDevice: Object.fromEntries([...this.#customers].map(([deviceId, customers]) => [deviceId, [...customers]])),
    };
  }
}
