// A store written by a newer minor version (STORE_SCHEMA_VERSION's rule in schema.ts): read whatever
// its minorVersion, and every key this build does not know written back as it was, with its
// record, through the store's own puts, heard saves and forgets, until that record goes.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fc, test as property } from '@fast-check/vitest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PairingStore, type DeviceRecord } from '../../src/store/index.js';
import { rollbackCopyName, schemaVersionOfText, STORE_MINOR_VERSION } from '../../src/store/schema.js';
import { linkedRecord, linkingRecord, makeStateDir } from './fixtures/sample-records.js';

let dir: string;
let file: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeStateDir());
  file = path.join(dir, 'pairings.json');
});
afterEach(async () => {
  await cleanup();
});

/** A record as the store encodes it: its keys in the schema's order. */
function canonical(record: DeviceRecord): string {
  const { deviceId, state, customerId, source, deviceTypeId, linkId, linkedAt, updatedAt, error } = record;
  return JSON.stringify({ deviceId, state, customerId, source, deviceTypeId, linkId, linkedAt, updatedAt, error });
}

const A1 = linkedRecord('a-1', 901);
const B2 = linkedRecord('b-2', 902);
const C3 = linkingRecord('c-3');
const SAVED_AT = '2026-11-26T09:30:00.000Z';
const POLLUTER = '{"polluted":true}';

// Written by hand, as a newer release would: unknown keys before, between and after known ones, a
// known key given twice (JSON.parse keeps the last), `__proto__` and `constructor` at every level.
const NEWER = `{
  "site": {"name": "Rosé ☃", "floors": [0, 1.5, -2e3]},
  "schemaVersion": 3,
  "minorVersion": 7,
  "__proto__": ${POLLUTER},
  "devices": [
    {"colour": "red", ${canonical(A1).slice(1, -1)}, "future": {"nested": [1, {"x": null}], "__proto__": ${POLLUTER}}},
    {${canonical(B2).slice(1, -1)}, "zone": "kitchen"},
    {"deviceId": "shadow", ${canonical(C3).slice(1, -1)}}
  ],
  "heard": {
    "retention": {"days": 30},
    "savedAt": "${SAVED_AT}",
    "devices": {
      "a-1": {"rssi": -71, "lastHeard": "2026-11-26T09:14:00.000Z", "__proto__": ${POLLUTER}},
      "b-2": {"lastHeard": "2026-11-26T09:15:00.000Z", "firmware": "2.1"}
    }
  },
  "constructor": {"prototype": ${POLLUTER}},
  "10": "an integer-like key, which JSON.parse puts first"
}
`;

describe('a store written by a newer minor version', () => {
  it('is read, and keeps every unknown key verbatim through puts, heard saves and forgets, until its record goes', async () => {
    await writeFile(file, NEWER, { mode: 0o600 });
    const store = await PairingStore.open(dir);
    expect(store.all()).toEqual([A1, B2, C3]);
    expect(store.heard()?.devices['a-1']).toEqual({ lastHeard: '2026-11-26T09:14:00.000Z' });

    const a1 = { ...A1, updatedAt: '2026-11-27T08:00:00.000Z', error: 'renewed' };
    const d4 = linkedRecord('d-4', 904);
    await store.put(d4);
    await store.put(a1);
    await store.saveHeard({
      savedAt: '2026-11-27T08:00:00.000Z',
      devices: { 'a-1': { lastHeard: '2026-11-27T07:59:00.000Z', battery: 80 }, 'b-2': { lastHeard: '2026-11-26T09:15:00.000Z' } },
    });
    // Forgetting, as the daemon does it: the record, then the heard times saved without it.
    expect(await store.remove('b-2')).toBe(true);
    await store.saveHeard({ savedAt: '2026-11-27T08:01:00.000Z', devices: { 'a-1': { lastHeard: '2026-11-27T07:59:00.000Z', battery: 80 } } });
    await store.close();

    expect(await readFile(file, 'utf8')).toBe(`{
  "schemaVersion": 3,
  "minorVersion": 1,
  "devices": [
    ${canonical(a1).slice(0, -1)},"colour":"red","future":{"nested":[1,{"x":null}],"__proto__":${POLLUTER}}},
    ${canonical(C3)},
    ${canonical(d4)}
  ],
  "heard": {
    "savedAt": "2026-11-27T08:01:00.000Z",
    "devices": {
      "a-1": {"lastHeard":"2026-11-27T07:59:00.000Z","battery":80,"rssi":-71,"__proto__":${POLLUTER}}
    },
    "retention": {"days":30}
  },
  "10": "an integer-like key, which JSON.parse puts first",
  "site": {"name":"Rosé ☃","floors":[0,1.5,-2000]},
  "__proto__": ${POLLUTER},
  "constructor": {"prototype":${POLLUTER}}
}
`);
    expectNoPollution();
  });

  it('reads back its own rewrite to the same bytes', async () => {
    await writeFile(file, NEWER, { mode: 0o600 });
    const first = await PairingStore.open(dir);
    await first.put(linkingRecord('e-5'));
    await first.close();
    const once = await readFile(file, 'utf8');
    const again = await PairingStore.open(dir);
    await again.put(linkingRecord('e-5'));
    await again.close();
    expect(await readFile(file, 'utf8')).toBe(once);
  });

  it('lets the keys of a forgotten record go: its id put back, or heard again, comes without them', async () => {
    await writeFile(file, NEWER, { mode: 0o600 });
    const store = await PairingStore.open(dir);
    // Removed and put back in one group commit: the removal still counts.
    await Promise.all([store.remove('b-2'), store.put(B2)]);
    const heardA1 = { lastHeard: '2026-11-27T07:59:00.000Z' };
    await store.saveHeard({ savedAt: '2026-11-27T08:00:00.000Z', devices: { 'a-1': heardA1 } });
    await store.saveHeard({ savedAt: '2026-11-27T08:01:00.000Z', devices: { 'a-1': heardA1, 'b-2': { lastHeard: '2026-11-27T08:00:30.000Z' } } });
    await store.close();
    const written = await readFile(file, 'utf8');
    expect(written).toContain(`\n    ${canonical(B2)},\n`);
    expect(written).toContain(`\n      "b-2": {"lastHeard":"2026-11-27T08:00:30.000Z"}\n`);
    expect(written).toContain(`\n      "a-1": {"lastHeard":"2026-11-27T07:59:00.000Z","rssi":-71,"__proto__":${POLLUTER}},\n`);
    expect(written).toContain('"colour":"red"');
    expect(written).not.toMatch(/zone|firmware/);
  });

  it('hands out records and heard times without the unknown keys, and none of them reaches a prototype', async () => {
    await writeFile(file, NEWER, { mode: 0o600 });
    const store = await PairingStore.open(dir, { lock: false });
    for (const record of store.all()) expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.keys(store.get('a-1')!)).toEqual(Object.keys(JSON.parse(canonical(A1)) as object));
    const devices = store.heard()!.devices;
    // Looked up by deviceId: no id finds what Object.prototype has.
    expect(devices['constructor']).toBeUndefined();
    expect(devices['toString']).toBeUndefined();
    expect(Object.keys(devices['a-1']!)).toEqual(['lastHeard']);
    expect(Object.getPrototypeOf(devices['a-1'])).toBe(Object.prototype);
    await store.close();
    expectNoPollution();
  });

  it('is read whatever its minorVersion, or without one; this build writes minor 1 and no key of its own beyond the schema', async () => {
    for (const minor of ['', '"minorVersion": 0,', '"minorVersion": 1,', '"minorVersion": 99999,']) {
      await writeFile(file, `{"schemaVersion": 3, ${minor} "devices": [${canonical(C3)}]}`, { mode: 0o600 });
      const store = await PairingStore.open(dir);
      expect(store.all()).toEqual([C3]);
      await store.put(A1);
      await store.close();
      const written = JSON.parse(await readFile(file, 'utf8')) as { devices: object[] };
      expect(STORE_MINOR_VERSION).toBe(1);
      expect(Object.keys(written)).toEqual(['schemaVersion', 'minorVersion', 'devices']);
      expect(written).toMatchObject({ schemaVersion: 3, minorVersion: 1 });
      expect(written.devices).toEqual([JSON.parse(canonical(A1)), C3]);
    }
  });

  it('of a newer schemaVersion is refused as ever, naming the file and the version, and left byte for byte', async () => {
    const newer = NEWER.replace('"schemaVersion": 3', '"schemaVersion": 4').replace('"minorVersion": 7', '"minorVersion": 0');
    await writeFile(file, newer, { mode: 0o600 });
    const error = await PairingStore.open(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'store' });
    expect((error as Error).message).toContain(`${file} has schemaVersion 4, which this panic-pair does not read`);
    expect(await readFile(file, 'utf8')).toBe(newer);
    expect(await readdir(dir)).toEqual(['pairings.json']);
  });

  it('is refused, and left as it is, when an unknown value is nested too deeply to be written back', async () => {
    const deep = `{"schemaVersion": 3, "devices": [], "later": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    await writeFile(file, deep, { mode: 0o600 });
    await expect(PairingStore.open(dir)).rejects.toMatchObject({ kind: 'store', message: expect.stringContaining(`${file} holds a key this panic-pair does not know, nested too deeply`) });
    expect(await readFile(file, 'utf8')).toBe(deep);
  });

  it('of an older schemaVersion keeps its rules: heard in version 1 is still refused, unknown keys or not', async () => {
    await writeFile(file, `{"schemaVersion": 1, "minorVersion": 3, "devices": [], "heard": {"savedAt": "${SAVED_AT}", "devices": {}}, "later": 1}`);
    await expect(PairingStore.open(dir)).rejects.toThrow(/heard needs schemaVersion 2/);
  });
});

describe('the names the rollback reads', () => {
  it('rollbackCopyName names the old form kept beside the store', () => {
    expect(rollbackCopyName(3)).toBe('pairings.schema-3.json');
    expect(rollbackCopyName(2)).toBe('pairings.schema-2.json');
  });

  it('schemaVersionOfText says the version a text declares, or undefined', () => {
    expect(schemaVersionOfText(NEWER)).toBe(3);
    expect(schemaVersionOfText('\uFEFF{"schemaVersion": 4, "minorVersion": 2}')).toBe(4);
    expect(schemaVersionOfText('{"schemaVersion": 1, "devices": []}')).toBe(1);
    // 0 is no version this build reads, but it is a version the text declares.
    expect(schemaVersionOfText('{"schemaVersion": 0}')).toBe(0);
    for (const text of ['', 'garbage', '{"schemaVersion": 3', '[]', 'null', '3', '{"devices": []}', '{"schemaVersion": "3"}', '{"schemaVersion": 2.5}', '{"schemaVersion": -1}']) {
      expect(schemaVersionOfText(text), text).toBeUndefined();
    }
    expect(schemaVersionOfText('{"__proto__": {"schemaVersion": 9}}')).toBeUndefined();
    expectNoPollution();
  });
});

// Any unknown keys and JSON values, at each level: each comes back as the JSON.stringify of its
// parsed value, after the known keys, in the order JSON.parse gives them.
const KNOWN = {
  file: ['schemaVersion', 'minorVersion', 'devices', 'heard'],
  record: ['deviceId', 'state', 'customerId', 'source', 'deviceTypeId', 'linkId', 'linkedAt', 'updatedAt', 'error'],
  heard: ['savedAt', 'devices'],
  button: ['lastHeard', 'battery', 'batteryLow', 'deadlineSeconds', 'sources', 'profile', 'counter'],
};
const key = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '0', '10', 'devices', 'deviceId '));
const unknownKeys = (known: string[]) =>
  fc.uniqueArray(fc.tuple(key.filter((name) => !known.includes(name)), fc.jsonValue({ maxDepth: 2 })), { selector: ([name]) => name, maxLength: 4 });

/** An object's text with `members` after `known`'s (each as JSON text). */
function objectText(known: string, members: [string, unknown][]): string {
  const more = members.map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`);
  return `{${[known.slice(1, -1), ...more].filter((part) => part !== '').join(', ')}}`;
}

/** The unknown members as the store writes them back: parsed, in JSON.parse's order, re-encoded;
 * within a line (`indent` undefined) or one a line. */
function keptAs(known: string[], text: string, indent?: string): string {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return Object.keys(parsed)
    .filter((name) => !known.includes(name))
    .map((name) => (indent === undefined ? `,${JSON.stringify(name)}:` : `,\n${indent}${JSON.stringify(name)}: `) + JSON.stringify(parsed[name]))
    .join('');
}

describe('unknown keys of any name and value', () => {
  property.prop([unknownKeys(KNOWN.file), unknownKeys(KNOWN.record), unknownKeys(KNOWN.heard), unknownKeys(KNOWN.button)], { numRuns: 40 })(
    'come back verbatim at each level after a put and a heard save',
    async (top, record, heard, button) => {
      const { dir: stateDir, cleanup: remove } = await makeStateDir();
      try {
        const recordText = objectText(canonical(A1), record);
        const buttonText = objectText('{"lastHeard": "2026-11-26T09:14:00.000Z"}', button);
        const heardText = objectText(`{"savedAt": "${SAVED_AT}", "devices": {"a-1": ${buttonText}}}`, heard);
        const fileText = objectText(`{"schemaVersion": 3, "minorVersion": 2, "devices": [${recordText}], "heard": ${heardText}}`, top);
        await writeFile(path.join(stateDir, 'pairings.json'), fileText, { mode: 0o600 });
        const store = await PairingStore.open(stateDir);
        await store.put(C3);
        await store.saveHeard({ savedAt: '2026-11-27T08:00:00.000Z', devices: { 'a-1': { lastHeard: '2026-11-27T07:00:00.000Z' } } });
        await store.close();
        const written = await readFile(path.join(stateDir, 'pairings.json'), 'utf8');
        expect(written).toContain(`\n    ${canonical(A1).slice(0, -1)}${keptAs(KNOWN.record, recordText)}},\n`);
        expect(written).toContain(`\n      "a-1": {"lastHeard":"2026-11-27T07:00:00.000Z"${keptAs(KNOWN.button, buttonText)}}\n    }`);
        expect(written).toContain(`\n    }${keptAs(KNOWN.heard, heardText, '    ')}\n  }`);
        expect(written.endsWith(`\n  }${keptAs(KNOWN.file, fileText, '  ')}\n}\n`)).toBe(true);
        expectNoPollution();
      } finally {
        await remove();
      }
    },
  );
});

function expectNoPollution(): void {
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
  expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('schemaVersion');
}
