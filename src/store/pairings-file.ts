// Reading and encoding `pairings.json`. A file that cannot be read, parsed or validated is refused
// with the reason and left exactly as it is: the installer decides what happens to it. Keys it
// does not know (a newer minor version's) are read beside the records and written back with them.
import { readFile, stat } from 'node:fs/promises';
import type { z } from 'zod';
import { PanicPairError } from '../errors.js';
import { describeFsError, errnoCode } from './fs-error-words.js';
import { describeJsonPosition, jsonErrorPosition } from './json-error-position.js';
import { keptLines, NOTHING_KEPT, setAsideUnknownKeys, withKept, type KeptKeys, type SetAside, type StoreKept } from './kept-keys.js';
import type { DeviceRecord } from './record.js';
import {
  pairingsFileSchema,
  READABLE_SCHEMA_VERSIONS,
  STORE_MINOR_VERSION,
  STORE_SCHEMA_VERSION,
  versionProblem,
  type HeardButton,
  type HeardSection,
} from './schema.js';

export const PAIRINGS_FILE = 'pairings.json';

const ADVICE = 'it was left as it is. Move it aside to start with an empty store, or restore a backup';

export interface PairingsContent {
  devices: DeviceRecord[];
  /** Absent in a version 1 file and in a store that has heard nothing yet. */
  heard?: HeardSection;
  /** The keys of a newer minor version, to be written back (kept-keys.ts). */
  kept: StoreKept;
}

/** The records of the file, or none when it does not exist yet. */
export async function readPairingsFile(file: string): Promise<PairingsContent> {
  const bytes = await readBytes(file);
  if (bytes === null) return { devices: [], kept: NOTHING_KEPT };
  let text: string;
  try {
    // Fatal decoding: a replacement character would quietly change a deviceId.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refused(file, 'is not valid UTF-8 text');
  }
  if (text.trim() === '') throw refused(file, 'is empty');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw refused(file, `is not valid JSON ${await jsonErrorPlace(error, text)}`);
  }
  const version = schemaVersionOf(value);
  if (typeof version === 'number' && !READABLE_SCHEMA_VERSIONS.includes(version)) {
    throw new PanicPairError(
      'store',
      `${file} has schemaVersion ${version}, which this panic-pair does not read (it reads ${spokenList(READABLE_SCHEMA_VERSIONS)}); ` +
        `${ADVICE}, or run the panic-pair version that wrote it`,
    );
  }
  // Whatever its minorVersion: a newer minor's keys are kept, not refused.
  let aside: SetAside;
  try {
    aside = setAsideUnknownKeys(value);
  } catch (error) {
    // JSON.parse reads deeper nesting than JSON.stringify, which recurses, can write back.
    if (error instanceof RangeError) throw refused(file, 'holds a key this panic-pair does not know, nested too deeply to be written back');
    throw error;
  }
  const parsed = pairingsFileSchema.safeParse(aside.known);
  if (!parsed.success) throw refused(file, `does not match the store schema (${summarizeIssues(parsed.error)})`);
  const problem = versionProblem(parsed.data);
  if (problem !== undefined) throw refused(file, `does not match the store schema (${problem})`);
  const { devices, heard } = parsed.data;
  const kept: StoreKept = {
    file: aside.file,
    heard: aside.heard,
    devices: new Map(Array.from(aside.records, ([index, keys]) => [devices[index]!.deviceId, keys])),
    heardDevices: aside.heardDevices,
  };
  if (heard === undefined) return { devices, kept };
  // Looked up by deviceId: a null prototype, so that an id such as `constructor` finds only its own entry.
  const buttons = Object.assign(Object.create(null) as Record<string, HeardButton>, heard.devices);
  return { devices, heard: { savedAt: heard.savedAt, devices: buttons }, kept };
}

/** Fixed key order and no undefined keys, so equal records encode to equal bytes. Frozen: the
 * store hands these out, and a caller's edit must not change what is believed to be on disk. */
export function canonicalRecord(record: DeviceRecord): Readonly<DeviceRecord> {
  return Object.freeze({
    deviceId: record.deviceId,
    state: record.state,
    customerId: record.customerId,
    source: record.source,
    ...(record.deviceTypeId !== undefined ? { deviceTypeId: record.deviceTypeId } : {}),
    ...(record.linkId !== undefined ? { linkId: record.linkId } : {}),
    ...(record.linkedAt !== undefined ? { linkedAt: record.linkedAt } : {}),
    updatedAt: record.updatedAt,
    ...(record.error !== undefined ? { error: record.error } : {}),
  });
}

/** The whole file from records already encoded one by one, in deviceId order: one device a line,
 * so the file is stable, readable and diffs well. `heard` is already encoded (encodeHeard); `kept`
 * are the file's own keys of a newer minor version. */
export function encodePairingsFile(encodedRecords: readonly string[], encodedHeard?: string, kept?: KeptKeys): string {
  const devices = encodedRecords.length === 0 ? '[]' : `[\n    ${encodedRecords.join(',\n    ')}\n  ]`;
  const heard = encodedHeard === undefined ? '' : `,\n  "heard": ${encodedHeard}`;
  return `{\n  "schemaVersion": ${STORE_SCHEMA_VERSION},\n  "minorVersion": ${STORE_MINOR_VERSION},\n  "devices": ${devices}${heard}${keptLines(kept, '  ')}\n}\n`;
}

/** `heard` with one button a line, in deviceId order, each with its kept keys (as read). */
export function encodeHeard(heard: HeardSection, kept: Pick<StoreKept, 'heard' | 'heardDevices'> = NOTHING_KEPT): string {
  const ids = Object.keys(heard.devices).sort();
  const entries = ids.map((id) => [id, withKept(JSON.stringify(heard.devices[id]), kept.heardDevices.get(id))] as const);
  return encodeHeardEntries(heard.savedAt, entries, kept.heard);
}

/** The same from entries already encoded, given in deviceId order; `kept` are the section's own. */
export function encodeHeardEntries(savedAt: string, entries: Iterable<readonly [string, string]>, kept?: KeptKeys): string {
  const lines = Array.from(entries, ([id, json]) => `${JSON.stringify(id)}: ${json}`);
  const devices = lines.length === 0 ? '{}' : `{\n      ${lines.join(',\n      ')}\n    }`;
  return `{\n    "savedAt": ${JSON.stringify(savedAt)},\n    "devices": ${devices}${keptLines(kept, '    ')}\n  }`;
}

export function summarizeIssues(error: z.ZodError, shown = 3): string {
  const parts = error.issues.slice(0, shown).map((issue) => {
    const where = issue.path.length === 0 ? '' : `${issue.path.map(String).join('.')}: `;
    return `${where}${issue.message}`;
  });
  const more = error.issues.length - shown;
  return more > 0 ? `${parts.join('; ')}; and ${more} more` : parts.join('; ');
}

async function readBytes(file: string): Promise<Buffer | null> {
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw refused(file, 'is a directory, where the store file should be');
    // A FIFO or device would block or stream forever; only a regular file can be the store.
    if (!info.isFile()) throw refused(file, 'is not a regular file');
    return await readFile(file);
  } catch (error) {
    if (error instanceof PanicPairError) throw error;
    if (errnoCode(error) === 'ENOENT') return null;
    throw new PanicPairError('store', `${file} cannot be read: ${describeFsError(error)}; ${ADVICE}`, { cause: error });
  }
}

function refused(file: string, what: string): PanicPairError {
  return new PanicPairError('store', `${file} ${what}; ${ADVICE}`);
}

async function jsonErrorPlace(error: unknown, text: string): Promise<string> {
  const position = await jsonErrorPosition(error, text);
  if (position !== null) return `at ${describeJsonPosition(text, position)}`;
  return `(${error instanceof Error ? error.message : String(error)})`;
}

function schemaVersionOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>).schemaVersion
    : undefined;
}

/** `1`, `1 and 2`, `1, 2 and 3`. */
function spokenList(versions: readonly number[]): string {
  return versions.length < 2 ? versions.join('') : `${versions.slice(0, -1).join(', ')} and ${versions.at(-1)}`;
}
