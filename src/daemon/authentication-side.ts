import { Authenticator } from '../authentication/authenticator.js';
import type { ControlHandlers } from '../control/handlers.js';
import type { PairingEngine } from '../pairing/engine.js';
import type { Supervisor } from '../supervision/supervisor.js';
import { keyedPairing } from './keyed-pairing.js';
import type { Config } from '../config/index.js';
import type { Sighting } from '../sighting.js';
import type { Logger } from '../log/logger.js';
import type { PairingStore } from '../store/index.js';
import type { ButtonKeyStore } from '../store/button-key-store.js';
import type { Counters } from '../status/counters.js';

// Authentication for the daemon: the keys paired with, those of
// PANIC_PAIR_BUTTON_KEYS_FILE (read as the daemon starts: a bad one stops it, exit 2), and the last
// counted counters saved with the heard times.

export interface AuthenticationParts {
  config: Config;
  store: PairingStore;
  keys: ButtonKeyStore;
  fileKeys: ReadonlyMap<string, Buffer>;
  counters: Counters;
  logger: Logger;
  deliver(sighting: Sighting): void;
  hearOnly(sighting: Sighting): void;
  changed(deviceId: string): void;
}

export function createAuthenticator(parts: AuthenticationParts): Authenticator {
  const savedCounters = new Map<string, number>();
  for (const [deviceId, heard] of Object.entries(parts.store.heard()?.devices ?? {})) {
    if (heard.counter !== undefined) savedCounters.set(deviceId, heard.counter);
  }
  return new Authenticator({
    keys: parts.keys,
    fileKeys: parts.fileKeys,
    savedCounters,
    keyRequired: new Set(parts.config.profiles.filter((profile) => profile.keyRequired === true).map((profile) => profile.name)),
    counters: parts.counters,
    deliver: parts.deliver,
    hearOnly: parts.hearOnly,
    changed: parts.changed,
    logger: parts.logger,
  });
}

/** `pair <deviceId>` as the control socket and the page ask for it: with a key, verified first. */
export function pairingWithKeys(parts: { engine: PairingEngine; authenticator: Authenticator; supervisor: Supervisor; hubCustomerId: number }): ControlHandlers['pair'] {
  const { engine, authenticator, supervisor } = parts;
  return keyedPairing((deviceId, options) => engine.pair(deviceId, options), {
    authenticator: {
      tryKey: (deviceId, key) => authenticator.tryKey(deviceId, key),
      fileKey: (deviceId) => authenticator.fileKey(deviceId),
      whenKeyNeeded: (deviceId, listener) => authenticator.whenKeyNeeded(deviceId, listener),
      adopt: async (deviceId, key, report) => {
        await authenticator.adopt(deviceId, key, report);
        // A counter accepted out of turn (a battery change) is saved now, not in 15 minutes.
        supervisor.saveSoon();
      },
    },
    record: (deviceId) => engine.record(deviceId),
    hubCustomerId: parts.hubCustomerId,
  });
}
