// The pairing store's surface: the store itself, its record type and schema, the durable write and
// the state dir's lock.
export { PairingStore, type PairingStoreOptions, type StoreHealth, type StoreStats } from './pairing-store.js';
export type { DeviceRecord, DeviceState } from './record.js';
export { deviceRecordSchema, pairingsFileSchema, STORE_SCHEMA_VERSION, type HeardButton, type HeardSection, type PairingsFile } from './schema.js';
export { PAIRINGS_FILE } from './pairings-file.js';
export {
  beginDurableWrite,
  writeFileDurably,
  type DurableWrite,
  type DurableFs,
  type DurableWriteOptions,
  type DurableWriteResult,
} from './durable-write.js';
export { LOCK_FILE, StateLock, type LockTakeover, type StateLockOptions } from './state-lock.js';
