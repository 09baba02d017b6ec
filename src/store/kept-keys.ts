// Keys of `pairings.json` this build does not know: a newer minor version wrote them (the rule at
// STORE_SCHEMA_VERSION in schema.ts). They are set aside before the schema check, which sees only
// the keys it knows, and written back after those keys, in the order read, at every rewrite of
// their object, until the object itself goes (a forgotten device, a button saved no more).
// Each is a key and the JSON.stringify of its parsed value, kept apart from the parsed data (no
// key is ever assigned onto an object by its name), so a `__proto__` or `constructor` key is
// only text here.
import { deviceRecordSchema, heardButtonSchema, heardSectionSchema, pairingsFileSchema } from './schema.js';

/** One object's unknown keys, in the order read, each with its value encoded. */
export type KeptKeys = readonly (readonly [key: string, json: string])[];

/** What a file held beyond the known keys, by place. */
export interface StoreKept {
  file: KeptKeys | undefined;
  heard: KeptKeys | undefined;
  /** By deviceId, for the records of `devices`. */
  devices: ReadonlyMap<string, KeptKeys>;
  /** By deviceId, for the entries of `heard.devices`. */
  heardDevices: ReadonlyMap<string, KeptKeys>;
}

export const NOTHING_KEPT: StoreKept = { file: undefined, heard: undefined, devices: new Map(), heardDevices: new Map() };

const FILE_KEYS = new Set(Object.keys(pairingsFileSchema.shape));
const RECORD_KEYS = new Set(Object.keys(deviceRecordSchema.shape));
const HEARD_KEYS = new Set(Object.keys(heardSectionSchema.shape));
const BUTTON_KEYS = new Set(Object.keys(heardButtonSchema.shape));

/** A parsed file split in two: `known` for the schema, and what was set aside from it, the
 * records' by their index in `devices` (their deviceIds are known once the schema has passed). */
export interface SetAside {
  known: unknown;
  file: KeptKeys | undefined;
  heard: KeptKeys | undefined;
  records: ReadonlyMap<number, KeptKeys>;
  heardDevices: ReadonlyMap<string, KeptKeys>;
}

/** Anything that is not an object of the expected shape is passed on as it is, for the schema to
 * refuse. Throws a RangeError for a value nested too deeply for JSON.stringify. */
export function setAsideUnknownKeys(value: unknown): SetAside {
  const records = new Map<number, KeptKeys>();
  const heardDevices = new Map<string, KeptKeys>();
  const top = split(value, FILE_KEYS);
  let heardKept: KeptKeys | undefined;
  if (top.known !== undefined) {
    const devices = top.known.devices;
    if (Array.isArray(devices)) {
      top.known.devices = devices.map((device: unknown, index) => {
        const record = split(device, RECORD_KEYS);
        if (record.kept !== undefined) records.set(index, record.kept);
        return record.known ?? device;
      });
    }
    const heard = split(top.known.heard, HEARD_KEYS);
    if (heard.known !== undefined) {
      top.known.heard = heard.known;
      heardKept = heard.kept;
      const buttons = heard.known.devices;
      if (isObject(buttons)) {
        // Keyed by deviceId: a null prototype, so that every id, `__proto__` too, is an own key.
        const known: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
        for (const id of Object.keys(buttons)) {
          const button = split(buttons[id], BUTTON_KEYS);
          if (button.kept !== undefined) heardDevices.set(id, button.kept);
          known[id] = button.known ?? buttons[id];
        }
        heard.known.devices = known;
      }
    }
  }
  return { known: top.known ?? value, file: top.kept, heard: heardKept, records, heardDevices };
}

/** `json`, one object as JSON.stringify wrote it, with `kept` after its own keys. */
export function withKept(json: string, kept: KeptKeys | undefined): string {
  if (kept === undefined) return json;
  return `${json.slice(0, -1)}${kept.map(([key, value]) => `,${JSON.stringify(key)}:${value}`).join('')}}`;
}

/** `kept` as further lines of an object written one key a line at `indent`. */
export function keptLines(kept: KeptKeys | undefined, indent: string): string {
  if (kept === undefined) return '';
  return kept.map(([key, value]) => `,\n${indent}${JSON.stringify(key)}: ${value}`).join('');
}

interface Split {
  /** The known keys only, or undefined when `value` is not an object. */
  known: Record<string, unknown> | undefined;
  kept: KeptKeys | undefined;
}

function split(value: unknown, knownKeys: ReadonlySet<string>): Split {
  if (!isObject(value)) return { known: undefined, kept: undefined };
  // Only known keys are assigned by name; none of them is special to an object.
  const known: Record<string, unknown> = {};
  let kept: (readonly [string, string])[] | undefined;
  for (const key of Object.keys(value)) {
    if (knownKeys.has(key)) known[key] = value[key];
    else (kept ??= []).push([key, JSON.stringify(value[key])]);
  }
  return { known, kept };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
