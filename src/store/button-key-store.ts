// The keys of keyed buttons, in `button-keys.json` beside the pairing
// store: a file of its own, mode 0600 in the state dir (0700), so that no record, row or reply
// built from the pairing store can ever carry a key. Written with the same four-step durable
// write; a key is durable before its button's link is posted, and removed by `forget`.
import { readdir, stat, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DEVICE_ID_PATTERN } from '../device-id.js';
import { PanicPairError } from '../errors.js';
import { TEMPORARY_SUFFIX, writeFileDurably, type DurableFs } from './durable-write.js';
import { describeFsError, errnoCode } from './fs-error-words.js';

export const BUTTON_KEYS_FILE = 'button-keys.json';
/** The keys are the daemon user's alone: a file others may read or write is refused at start. */
const FORBIDDEN_BITS = 0o077;

const keysFileSchema = z.strictObject({
  version: z.literal(1),
  keys: z.record(z.string().regex(DEVICE_ID_PATTERN), z.string().regex(/^[0-9a-f]{32}$/)),
});

export class ButtonKeyStore {
  readonly file: string;
  readonly #keys: Map<string, Buffer>;
  readonly #fs: DurableFs | undefined;
  /** One write at a time, each with every change made before it began. */
  #writing: Promise<void> = Promise.resolve();

  private constructor(file: string, keys: Map<string, Buffer>, fs: DurableFs | undefined) {
    this.file = file;
    this.#keys = keys;
    this.#fs = fs;
  }

  /** Reads the keys; refuses (kind 'store') a file others can read, or one that is not valid. */
  static async open(stateDir: string, options: { fs?: DurableFs } = {}): Promise<ButtonKeyStore> {
    const file = path.join(stateDir, BUTTON_KEYS_FILE);
    await removeLeftoverTemporaries(stateDir);
    return new ButtonKeyStore(file, await readKeys(file), options.fs);
  }

  /** The key of a keyed button. Never logged, never part of any output. */
  get(deviceId: string): Buffer | undefined {
    return this.#keys.get(deviceId);
  }

  /** The buttons that have a key. */
  ids(): string[] {
    return [...this.#keys.keys()];
  }

  has(deviceId: string): boolean {
    return this.#keys.has(deviceId);
  }

  get size(): number {
    return this.#keys.size;
  }

  /** Keeps the key; resolves once it is durable. */
  async set(deviceId: string, key: Uint8Array): Promise<void> {
    const current = this.#keys.get(deviceId);
    if (current !== undefined && current.equals(key)) return;
    this.#keys.set(deviceId, Buffer.from(key));
    await this.#write();
  }

  /** Forgets the key (`forget`); resolves once that is durable. */
  async remove(deviceId: string): Promise<void> {
    if (!this.#keys.delete(deviceId)) return;
    await this.#write();
  }

  #write(): Promise<void> {
    const write = this.#writing.catch(() => undefined).then(async () => {
      const keys: Record<string, string> = {};
      for (const id of [...this.#keys.keys()].sort()) keys[id] = this.#keys.get(id)!.toString('hex');
      await writeFileDurably(this.file, `${JSON.stringify({ version: 1, keys }, null, 2)}\n`, { mode: 0o600, ...(this.#fs === undefined ? {} : { fs: this.#fs }) });
    });
    this.#writing = write;
    return write;
  }
}

async function readKeys(file: string): Promise<Map<string, Buffer>> {
  let text: string;
  try {
    const info = await stat(file);
    if ((info.mode & FORBIDDEN_BITS) !== 0) {
      throw new PanicPairError('store', `${file} holds button keys and may be read or written by others (mode ${(info.mode & 0o777).toString(8)}): chmod 600 ${file}`);
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof PanicPairError) throw error;
    if (errnoCode(error) === 'ENOENT') return new Map();
    throw new PanicPairError('store', `cannot read ${file}: ${describeFsError(error)}`, { cause: error });
  }
  let parsed: z.infer<typeof keysFileSchema>;
  try {
    parsed = keysFileSchema.parse(JSON.parse(text));
  } catch {
    // Nothing of the content is echoed: it is keys.
    throw new PanicPairError('store', `${file} is not a valid file of button keys; it was left as it is. Restore a backup, or move it aside and pair the keyed buttons again with their keys`);
  }
  return new Map(Object.entries(parsed.keys).map(([id, hex]) => [id, Buffer.from(hex, 'hex')]));
}

async function removeLeftoverTemporaries(stateDir: string): Promise<void> {
  const names = await readdir(stateDir).catch(() => [] as string[]);
  const leftovers = names.filter((name) => name.startsWith(`${BUTTON_KEYS_FILE}.`) && name.endsWith(TEMPORARY_SUFFIX));
  await Promise.all(leftovers.map((name) => unlink(path.join(stateDir, name)).catch(() => undefined)));
}
