import type { RefusalReport } from '../status/status-report.js';
import { isRefusal, reasonWords } from './broker-answers.js';

// What the broker refused, kept until it grants or accepts it: a refused subscription leaves the
// hub deaf on that filter, a refused retained publish leaves subscribers without the hub's state.
// Both make `status` degraded and are asked again at the next connect (and on a timer).

export class BrokerRefusals {
  readonly #subscriptions = new Map<string, string>();
  /** Topic to the refused payload, published again at the next connect. */
  readonly #publishes = new Map<string, { payload: string; reason: string }>();
  #publishesRefused = 0;
  readonly #listeners = new Set<() => void>();

  /** The broker's answer to a subscription; returns the reason when it refused. */
  subscriptionAnswered(filter: string, code: number, protocolVersion: 4 | 5): string | undefined {
    if (!isRefusal(code)) {
      if (this.#subscriptions.delete(filter)) this.#changed();
      return undefined;
    }
    const reason = reasonWords(code, protocolVersion);
    const before = this.#subscriptions.get(filter);
    this.#subscriptions.set(filter, reason);
    if (before !== reason) this.#changed();
    return reason;
  }

  publishAccepted(topic: string): void {
    if (this.#publishes.delete(topic)) this.#changed();
  }

  /** Counts the refusal and keeps the payload for the next try; returns the reason. */
  publishRefused(topic: string, payload: string, code: number): string {
    const reason = reasonWords(code, 5);
    this.#publishesRefused++;
    this.#publishes.set(topic, { payload, reason });
    this.#changed();
    return reason;
  }

  refusedFilters(): string[] {
    return [...this.#subscriptions.keys()];
  }

  /** The refused publishes to try again, latest payload per topic. */
  pendingPublishes(): Array<{ topic: string; payload: string }> {
    return [...this.#publishes].map(([topic, entry]) => ({ topic, payload: entry.payload }));
  }

  report(): RefusalReport {
    return {
      subscriptions: [...this.#subscriptions].map(([filter, reason]) => ({ filter, reason })),
      publishes: [...this.#publishes].map(([topic, entry]) => ({ topic, reason: entry.reason })),
      publishesRefused: this.#publishesRefused,
    };
  }

  /** Called on every change (`pair` stops at once when the hub turns deaf); returns the way to stop. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}
