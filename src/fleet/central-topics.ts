import { CENTRAL_ROOT } from './bridge.js';

// What `fleet` reads from the central broker: three retained topics a
// hub, under `hubs/<hub-id>/`, as the bridge (bridge.ts) carries them there.

export type HubTopicKind = 'health' | 'status' | 'bridge';

export const FLEET_FILTERS: readonly string[] = [`${CENTRAL_ROOT}/+/health`, `${CENTRAL_ROOT}/+/status`, `${CENTRAL_ROOT}/+/bridge/state`];

/** The hub id level (unchecked: any string `+` matched) and which of the three topics it is. */
export function hubTopicOf(topic: string): { hubId: string; kind: HubTopicKind } | undefined {
  const levels = topic.split('/');
  if (levels[0] !== CENTRAL_ROOT || levels[1] === undefined) return undefined;
  const hubId = levels[1];
  if (levels.length === 3 && (levels[2] === 'health' || levels[2] === 'status')) return { hubId, kind: levels[2] };
  if (levels.length === 4 && levels[2] === 'bridge' && levels[3] === 'state') return { hubId, kind: 'bridge' };
  return undefined;
}
