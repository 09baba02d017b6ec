import type { Logger } from '../log/logger.js';
import { ButtonKeyStore } from '../store/button-key-store.js';
import { PairingStore } from '../store/index.js';

// The daemon's state on disk: the pairing store (which holds the state dir's lock) and the
// buttons' keys beside it.

export async function openStores(stateDir: string, logger: Logger): Promise<{ store: PairingStore; keys: ButtonKeyStore }> {
  const store = await PairingStore.open(stateDir);
  if (store.lockTakeover) logger.warn({ takeover: store.lockTakeover }, 'took over a stale lock left by an earlier run');
  // A keys file that cannot be read stops start-up: the lock is given back first.
  const keys = await ButtonKeyStore.open(stateDir).catch(async (error: unknown) => {
    await store.close().catch(() => undefined);
    throw error;
  });
  return { store, keys };
}
