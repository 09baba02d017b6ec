import type { DeviceRecord } from '../store/record.js';
import type { DeviceStore } from './link-job.js';

// Links the API made but the store failed to record (a full disk, a failing SD card). They are
// kept in memory, laid over the store's records, and never posted again: a second POST could link
// the button twice. The daemon writes them again until the store takes them.
export class UnsavedLinks {
  readonly #store: DeviceStore;
  readonly #records = new Map<string, DeviceRecord>();

  constructor(store: DeviceStore) {
    this.#store = store;
  }

  get size(): number {
    return this.#records.size;
  }

  keep(record: DeviceRecord): void {
    this.#records.set(record.deviceId, record);
  }

  drop(deviceId: string): void {
    this.#records.delete(deviceId);
  }

  /** The store's record, with links the store failed to record laid over it. */
  record(deviceId: string): DeviceRecord | undefined {
    return this.#records.get(deviceId) ?? this.#store.get(deviceId);
  }

  all(): DeviceRecord[] {
    if (this.#records.size === 0) return this.#store.all();
    return this.#store.all().map((record) => this.#records.get(record.deviceId) ?? record);
  }

  /** Writes again the links the store failed to record; true when none is left. */
  async writeAgain(): Promise<boolean> {
    for (const [deviceId, record] of this.#records) {
      try {
        await this.#store.put(record);
        this.#records.delete(deviceId);
      } catch {
        return false;
      }
    }
    return true;
  }
}
