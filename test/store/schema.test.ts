// The store's schema on its own, against files written by hand: what it accepts, what it refuses,
// and what a refusal says.
import { describe, expect, it } from 'vitest';
import { deviceRecordSchema, heardButtonSchema, pairingsFileSchema, versionProblem, type PairingsFile } from '../../src/store/schema.js';

const at = '2024-05-01T10:00:00.000Z';
const linking = { deviceId: 'BTN-1', state: 'linking', customerId: 42, source: 'ble', updatedAt: at };
const linked = { ...linking, state: 'linked', linkId: 9, linkedAt: at };

function issuesOf(result: { success: boolean; error?: { issues: readonly { code: string; message: string; path: readonly PropertyKey[] }[] } }): { code: string; message: string; path: PropertyKey[] }[] {
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map(({ code, message, path }) => ({ code, message, path: [...path] }));
}

describe('a device record', () => {
  it.each(['linking', 'linked', 'rejected', 'failed'])('may be %s', (state) => {
    expect(deviceRecordSchema.safeParse({ ...linked, state }).success).toBe(true);
  });

  it('refuses a state the store does not know', () => {
    expect(deviceRecordSchema.safeParse({ ...linking, state: 'paired' }).success).toBe(false);
  });

  it('takes times with an offset, as a hub set to local time may write them', () => {
    expect(deviceRecordSchema.safeParse({ ...linking, updatedAt: '2024-05-01T12:00:00+02:00' }).success).toBe(true);
    expect(deviceRecordSchema.safeParse({ ...linking, updatedAt: '2024-05-01 12:00' }).success).toBe(false);
  });

  it('says what a deviceId may be', () => {
    expect(issuesOf(deviceRecordSchema.safeParse({ ...linking, deviceId: 'a b' }))).toEqual([
      { code: 'invalid_format', message: 'a deviceId is 1 to 64 characters of A-Z a-z 0-9 . _ : -', path: ['deviceId'] },
    ]);
  });

  it('when linked, needs its linkId and its linkedAt, each of them', () => {
    const needs = [{ code: 'custom', message: 'a linked device needs its linkId and linkedAt', path: [] }];
    const { linkId: _linkId, ...noLinkId } = linked;
    const { linkedAt: _linkedAt, ...noLinkedAt } = linked;
    expect(issuesOf(deviceRecordSchema.safeParse(noLinkId))).toEqual(needs);
    expect(issuesOf(deviceRecordSchema.safeParse(noLinkedAt))).toEqual(needs);
    expect(issuesOf(deviceRecordSchema.safeParse({ ...linking, state: 'linked' }))).toEqual(needs);
    expect(deviceRecordSchema.safeParse(linked).success).toBe(true);
  });

  it('when not linked, needs neither', () => {
    expect(deviceRecordSchema.safeParse(linking).success).toBe(true);
    expect(deviceRecordSchema.safeParse({ ...linking, state: 'failed', error: 'timed out' }).success).toBe(true);
  });
});

describe('a pairings file', () => {
  const file = (devices: unknown[]): unknown => ({ schemaVersion: 3, devices });

  it('names a deviceId given twice, at its second place', () => {
    const other = { ...linking, deviceId: 'BTN-2' };
    expect(issuesOf(pairingsFileSchema.safeParse(file([linking, other, { ...linked }])))).toEqual([
      { code: 'custom', message: 'deviceId BTN-1 appears twice', path: ['devices', 2, 'deviceId'] },
    ]);
    expect(pairingsFileSchema.safeParse(file([linking, other])).success).toBe(true);
  });

  it('reads versions 1, 2 and 3 and no other', () => {
    for (const schemaVersion of [1, 2, 3]) expect(pairingsFileSchema.safeParse({ schemaVersion, devices: [] }).success).toBe(true);
    for (const schemaVersion of [0, 4]) expect(pairingsFileSchema.safeParse({ schemaVersion, devices: [] }).success).toBe(false);
  });
});

describe('a heard button', () => {
  it('keeps a battery from 0 to 100 and a counter up to 2^32 - 1', () => {
    for (const battery of [0, 100]) expect(heardButtonSchema.safeParse({ lastHeard: at, battery }).success).toBe(true);
    for (const battery of [-1, 101, 50.5]) expect(heardButtonSchema.safeParse({ lastHeard: at, battery }).success).toBe(false);
    for (const counter of [0, 0xffff_ffff]) expect(heardButtonSchema.safeParse({ lastHeard: at, counter }).success).toBe(true);
    for (const counter of [-1, 0x1_0000_0000]) expect(heardButtonSchema.safeParse({ lastHeard: at, counter }).success).toBe(false);
  });
});

describe('versionProblem', () => {
  const heard = (devices: Record<string, { lastHeard: string; counter?: number }>): PairingsFile['heard'] => ({ savedAt: at, devices });

  it('refuses heard times in a version 1 file', () => {
    expect(versionProblem({ schemaVersion: 1, devices: [] })).toBeUndefined();
    expect(versionProblem({ schemaVersion: 1, devices: [], heard: heard({}) })).toBe('heard needs schemaVersion 2');
  });

  it('refuses a counter in a version 2 file, even on one button of several', () => {
    expect(versionProblem({ schemaVersion: 2, devices: [] })).toBeUndefined();
    expect(versionProblem({ schemaVersion: 2, devices: [], heard: heard({ A: { lastHeard: at } }) })).toBeUndefined();
    expect(versionProblem({ schemaVersion: 2, devices: [], heard: heard({ A: { lastHeard: at }, B: { lastHeard: at, counter: 7 } }) })).toBe(
      'counter needs schemaVersion 3',
    );
  });

  it('finds nothing wrong with a version 3 file holding both', () => {
    expect(versionProblem({ schemaVersion: 3, devices: [], heard: heard({ B: { lastHeard: at, counter: 7 } }) })).toBeUndefined();
  });
});
