import type { SourceLiveness } from '../supervision/types.js';

// The latest liveness each MQTT-side source told (gateways' last wills, Zigbee2MQTT's bridge
// state), for supervision. A source never heard from has no entry. Bounded: anyone on the broker
// can publish a last will under a new gateway name.

export const MAX_SOURCES = 256;

export class SourceLivenessBoard {
  readonly #latest = new Map<string, boolean>();
  readonly #listeners = new Set<(liveness: SourceLiveness) => void>();

  /**
   * Keeps the source's latest state; listeners hear only changes (a retained will sent again at a
   * reconnect is no news). False when the board is full and the source is new: not kept.
   */
  note(liveness: SourceLiveness): boolean {
    const known = this.#latest.get(liveness.source);
    if (known === undefined && this.#latest.size >= MAX_SOURCES) return false;
    if (known === liveness.up) return true;
    this.#latest.set(liveness.source, liveness.up);
    let failure: unknown;
    for (const listener of this.#listeners) {
      // One listener's fault must not keep the news from the others.
      try {
        listener({ source: liveness.source, up: liveness.up });
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
    return true;
  }

  all(): SourceLiveness[] {
    return [...this.#latest].map(([source, up]) => ({ source, up }));
  }

  onChange(listener: (liveness: SourceLiveness) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
