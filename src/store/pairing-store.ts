// The pairing store: every device the hub has tried to link, kept durably in `pairings.json`.
// What `get` and `all` return is what is on disk; a change counts only once its write is durable.
// Changes that arrive while a write is under way go out together in the next one (group commit),
// so a burst of sightings costs a handful of fsyncs, not one each.
import { mkdir, readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { messageOf, PanicPairError } from '../errors.js';
import { describeFsError } from './fs-error-words.js';
import { beginDurableWrite, TEMPORARY_SUFFIX, type DurableFs, type DurableWrite } from './durable-write.js';
import { withKept, type KeptKeys } from './kept-keys.js';
import { canonicalRecord, encodeHeard, encodePairingsFile, PAIRINGS_FILE, readPairingsFile, summarizeIssues, type PairingsContent } from './pairings-file.js';
import type { DeviceRecord } from './record.js';
import { HeardChecker } from './heard-check.js';
import { deviceRecordSchema, type HeardSection } from './schema.js';
import { StateLock, type LockTakeover } from './state-lock.js';

export interface PairingStoreOptions {
  /** Take the state dir's lock (default true). Without it the store is read-only: put and remove
   * reject, since a second writer would overwrite the owner's changes. */
  lock?: boolean;
  now?: () => Date;
  /** The file system the writes go through; tests pass a failing one. */
  fs?: DurableFs;
}

export interface StoreStats {
  /** Files durably written. */
  writes: number;
  fsyncs: number;
  bytesWritten: number;
  /** The most recent write failure, kept after later writes succeed; health() forgets it. */
  lastWriteError?: string;
  lastWriteAt?: string;
}

export interface StoreHealth {
  ok: boolean;
  error?: string;
}

interface Entry {
  record: Readonly<DeviceRecord>;
  /** What goes to disk: the record, then its kept keys. */
  json: string;
  /** Keys of a newer minor version read with the record, kept through its puts until it is removed. */
  kept?: KeptKeys;
}

interface HeardEntry {
  section: HeardSection;
  json: string;
}

interface Change {
  deviceId: string;
  /** null removes the device. */
  entry: Entry | null;
  /** Set on a change of the heard section alone (deviceId and entry are then unused). */
  heard?: HeardEntry;
  settle: (existed: boolean) => void;
  fail: (error: unknown) => void;
}

export class PairingStore {
  readonly stateDir: string;
  readonly file: string;
  /** Set when open took over a stale lock; the daemon reports it. */
  readonly lockTakeover: LockTakeover | undefined;
  readonly #lock: StateLock | undefined;
  readonly #now: () => Date;
  readonly #fs: DurableFs | undefined;
  readonly #entries = new Map<string, Entry>();
  #heard: HeardEntry | undefined;
  readonly #heardChecker: HeardChecker;
  /** The file's own keys of a newer minor version. */
  readonly #fileKept: KeptKeys | undefined;
  /** deviceIds of #entries in code-unit order, kept sorted so a write never sorts the store. */
  #ids: string[];
  #queue: Change[] = [];
  #writing: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  /** A write begun ahead of its changes (prepareWrite), taken by the next one. */
  #ahead: DurableWrite | undefined;
  #stats: StoreStats = { writes: 0, fsyncs: 0, bytesWritten: 0 };
  #healthError: string | undefined;

  private constructor(stateDir: string, content: PairingsContent, lock: StateLock | undefined, options: PairingStoreOptions) {
    this.stateDir = stateDir;
    this.file = path.join(stateDir, PAIRINGS_FILE);
    this.#lock = lock;
    this.lockTakeover = lock?.takeover;
    this.#now = options.now ?? (() => new Date());
    this.#fs = options.fs;
    const { kept } = content;
    for (const record of content.devices) {
      const canonical = canonicalRecord(record);
      const keys = kept.devices.get(record.deviceId);
      const json = withKept(JSON.stringify(canonical), keys);
      this.#entries.set(record.deviceId, keys === undefined ? { record: canonical, json } : { record: canonical, json, kept: keys });
    }
    this.#ids = [...this.#entries.keys()].sort(compareIds);
    this.#fileKept = kept.file;
    this.#heardChecker = new HeardChecker(kept);
    if (content.heard !== undefined) this.#heard = { section: content.heard, json: encodeHeard(content.heard, kept) };
  }

  static async open(stateDir: string, options: PairingStoreOptions = {}): Promise<PairingStore> {
    try {
      await mkdir(stateDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new PanicPairError('store', `cannot create the state dir ${stateDir}: ${describeFsError(error)}`, { cause: error });
    }
    const lock = options.lock === false ? undefined : await StateLock.acquire(stateDir, { now: options.now });
    try {
      const content = await readPairingsFile(path.join(stateDir, PAIRINGS_FILE));
      // Only the lock holder may clear temporaries: without the lock they may be a live writer's.
      if (lock) await removeLeftoverTemporaries(stateDir);
      return new PairingStore(stateDir, content, lock, options);
    } catch (error) {
      await lock?.release();
      throw error;
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  get(deviceId: string): Readonly<DeviceRecord> | undefined {
    return this.#entries.get(deviceId)?.record;
  }

  /** Every device on disk, in deviceId order. */
  all(): Readonly<DeviceRecord>[] {
    return this.#ids.map((id) => this.#entries.get(id)!.record);
  }

  /** Resolves once the record is durably on disk; rejects (kind 'store') when it cannot be. */
  async put(record: DeviceRecord): Promise<void> {
    this.#assertWritable();
    const parsed = deviceRecordSchema.safeParse(record);
    if (!parsed.success) {
      throw new PanicPairError('store', `refusing to store device ${String(record?.deviceId)}: ${summarizeIssues(parsed.error)}`);
    }
    const canonical = canonicalRecord(parsed.data);
    await this.#enqueue(canonical.deviceId, { record: canonical, json: JSON.stringify(canonical) });
  }

  /** When each linked button was last heard, as last saved. */
  heard(): Readonly<HeardSection> | undefined {
    return this.#heard?.section;
  }

  /**
   * Replaces the heard section; resolves once durable. It rides the same atomic, fsynced writes
   * as the records, in the same group commit, so it never costs a pairing its durability.
   */
  async saveHeard(section: HeardSection): Promise<void> {
    this.#assertWritable();
    const checked = this.#heardChecker.check(section);
    if (!checked.ok) throw new PanicPairError('store', `refusing to store the heard times: ${checked.problem}`);
    await new Promise<boolean>((settle, fail) => {
      this.#queue.push({ deviceId: '', entry: null, heard: { section: checked.section, json: checked.json }, settle, fail });
      this.#writing ??= this.#drain();
    });
  }

  /** Resolves to whether the device was in the store, once its removal is durable. */
  async remove(deviceId: string): Promise<boolean> {
    this.#assertWritable();
    return this.#enqueue(deviceId, null);
  }

  /**
   * A change is expected soon (a link's answer): its write begins now, creating the temporary file
   * off the path of that change. What is written, and when a change counts, stay as they are.
   */
  prepareWrite(): void {
    if (this.#ahead !== undefined || this.#closing || !this.#lock) return;
    this.#ahead = beginDurableWrite(this.file, { fs: this.#fs });
  }

  /** Waits until every change queued so far is written or has failed (failures go to their callers). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.flush();
      await this.#ahead?.abandon();
      this.#ahead = undefined;
      await this.#lock?.release();
    })();
    return this.#closing;
  }

  stats(): StoreStats {
    return { ...this.#stats };
  }

  health(): StoreHealth {
    return this.#healthError === undefined ? { ok: true } : { ok: false, error: this.#healthError };
  }

  #assertWritable(): void {
    if (this.#closing) throw new PanicPairError('store', `the pairing store ${this.file} is closed`);
    if (!this.#lock) throw new PanicPairError('store', `the pairing store ${this.file} was opened read-only (without the lock)`);
  }

  #enqueue(deviceId: string, entry: Entry | null): Promise<boolean> {
    return new Promise<boolean>((settle, fail) => {
      this.#queue.push({ deviceId, entry, settle, fail });
      this.#writing ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    // The temporary file is created while the changes gather: one turn of the event loop, so
    // that a burst issued together goes out as one write, and the encoding of the file.
    let write = this.#beginWrite();
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (;;) {
      const batch = this.#queue;
      this.#queue = [];
      await this.#commit(batch, write);
      if (this.#queue.length === 0) break;
      write = this.#beginWrite();
    }
    this.#writing = undefined;
  }

  #beginWrite(): DurableWrite {
    const write = this.#ahead ?? beginDurableWrite(this.file, { fs: this.#fs });
    this.#ahead = undefined;
    return write;
  }

  async #commit(batch: Change[], write: DurableWrite): Promise<void> {
    const delta = new Map<string, Entry | null>();
    let heard: HeardEntry | undefined;
    const existed: boolean[] = [];
    for (const change of batch) {
      if (change.heard !== undefined) {
        heard = change.heard;
        existed.push(true);
        continue;
      }
      const before = delta.has(change.deviceId) ? delta.get(change.deviceId) : this.#entries.get(change.deviceId);
      existed.push(before !== undefined && before !== null);
      // A put keeps what the record it replaces kept; a removal lets it go.
      delta.set(change.deviceId, change.entry === null || before?.kept === undefined ? change.entry : keeping(change.entry, before.kept));
    }
    const changesHeard = heard !== undefined && heard.json !== this.#heard?.json;
    const changesDisk = changesHeard || [...delta].some(([id, entry]) => entry !== null || this.#entries.has(id));
    if (!changesDisk) {
      await write.abandon();
    } else {
      try {
        await this.#write(delta, changesHeard ? heard : undefined, write);
      } catch (error) {
        this.#healthError = messageOf(error);
        this.#stats.lastWriteError = this.#healthError;
        for (const change of batch) change.fail(error);
        return;
      }
    }
    batch.forEach((change, index) => change.settle(existed[index]!));
  }

  /** Writes the store as it will be with `delta` applied, and adopts it once durable. */
  async #write(delta: Map<string, Entry | null>, heard: HeardEntry | undefined, write: DurableWrite): Promise<void> {
    const ids = mergeIds(this.#ids, delta, this.#entries);
    const encoded = ids.map((id) => (delta.get(id) ?? this.#entries.get(id))!.json);
    const nextHeard = heard ?? this.#heard;
    const result = await write.finish(encodePairingsFile(encoded, nextHeard?.json, this.#fileKept));
    this.#heard = nextHeard;
    for (const [id, entry] of delta) {
      if (entry === null) this.#entries.delete(id);
      else this.#entries.set(id, entry);
    }
    this.#ids = ids;
    this.#stats.writes += 1;
    this.#stats.fsyncs += result.fsyncs;
    this.#stats.bytesWritten += result.bytes;
    this.#stats.lastWriteAt = this.#now().toISOString();
    this.#healthError = undefined;
  }
}

function keeping(entry: Entry, kept: KeptKeys): Entry {
  return { record: entry.record, json: withKept(entry.json, kept), kept };
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The sorted ids after `delta`: a merge of the kept ids with the (few) new ones. */
function mergeIds(current: readonly string[], delta: Map<string, Entry | null>, entries: Map<string, Entry>): string[] {
  const added = [...delta].filter(([id, entry]) => entry !== null && !entries.has(id)).map(([id]) => id).sort(compareIds);
  const merged: string[] = [];
  let next = 0;
  for (const id of current) {
    while (next < added.length && compareIds(added[next]!, id) < 0) merged.push(added[next++]!);
    if (delta.get(id) !== null) merged.push(id);
  }
  while (next < added.length) merged.push(added[next++]!);
  return merged;
}

async function removeLeftoverTemporaries(stateDir: string): Promise<void> {
  const names = await readdir(stateDir).catch(() => [] as string[]);
  const leftovers = names.filter((name) => name.startsWith(`${PAIRINGS_FILE}.`) && name.endsWith(TEMPORARY_SUFFIX));
  await Promise.all(leftovers.map((name) => unlink(path.join(stateDir, name)).catch(() => undefined)));
}
