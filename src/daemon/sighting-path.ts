import type { Authenticator } from '../authentication/authenticator.js';
import type { Config } from '../config/index.js';
import type { Sighting } from '../sighting.js';
import type { Logger } from '../log/logger.js';
import type { PairingEngine } from '../pairing/engine.js';
import type { Counters } from '../status/counters.js';
import type { ButtonKeyStore } from '../store/button-key-store.js';
import type { PairingStore } from '../store/index.js';
import type { Supervisor } from '../supervision/supervisor.js';
import { createAuthenticator } from './authentication-side.js';
import { createSupervisor, type HearingSides } from './supervision-side.js';

// The path every sighting takes in the daemon, whatever source heard it: the authenticator first
// (a keyed button's report counts only once verified), which hands what
// counts to supervision (a timestamp on the hot path) and then to the engine.

export interface SightingPath {
  /** Where the sources deliver. */
  onSighting(sighting: Sighting): void;
  supervisor: Supervisor;
  authenticator: Authenticator;
}

export function createSightingPath(parts: {
  config: Config;
  store: PairingStore;
  keys: ButtonKeyStore;
  fileKeys: ReadonlyMap<string, Buffer>;
  engine: PairingEngine;
  /** Filled in as the sides start: supervision reads whether a source can hear now. */
  sides: HearingSides;
  counters: Counters;
  logger: Logger;
}): SightingPath {
  const { engine } = parts;
  // Counters are read lazily: the authenticator is made after the supervisor it feeds.
  let authenticator: Authenticator | undefined;
  const supervisor = createSupervisor({
    ...parts,
    counterOf: (deviceId) => authenticator?.counter(deviceId),
    imitatedOf: (deviceId) => (authenticator?.keyed(deviceId) === true ? authenticator.imitated(deviceId) : undefined),
  });
  const auth = createAuthenticator({
    ...parts,
    deliver: (sighting) => {
      supervisor.heard(sighting);
      engine.sighting(sighting);
    },
    hearOnly: (sighting) => supervisor.heard(sighting),
    changed: (deviceId) => supervisor.retell(deviceId),
  });
  authenticator = auth;
  engine.onDevice((record) => {
    if (record.state === 'linked') auth.linked(record.deviceId);
  });
  return { onSighting: (sighting) => auth.sighting(sighting), supervisor, authenticator: auth };
}
