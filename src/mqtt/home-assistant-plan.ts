// What to publish so that the broker's retained discovery configs of this hub become the desired
// ones: pure, so "a restart with nothing changed publishes nothing" is decided in one place.

export interface DiscoveryPlan {
  /** Topic and config to publish, retained. */
  publish: Array<[topic: string, payload: string]>;
  /** Config topics to clear with an empty retained payload: configs of this hub naming nothing it holds. */
  clear: string[];
}

/**
 * `retained` is what the broker holds under this hub's config topics, as far as is known.
 * `force` publishes every desired config even when the broker already holds the same bytes:
 * Home Assistant that has just come back asks for them all. `held` are topics not published now
 * but not to be cleared either (a stored button's battery sensor while its reading is unknown).
 */
export function planDiscovery(
  desired: ReadonlyMap<string, string>,
  retained: ReadonlyMap<string, string>,
  force = false,
  held: ReadonlySet<string> = new Set(),
): DiscoveryPlan {
  const publish: DiscoveryPlan['publish'] = [];
  for (const [topic, payload] of desired) {
    if (force || retained.get(topic) !== payload) publish.push([topic, payload]);
  }
  const clear = [...retained.keys()].filter((topic) => !desired.has(topic) && !held.has(topic));
  return { publish, clear };
}
