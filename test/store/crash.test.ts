// THE crash test: a real writer process is killed with SIGKILL at many instants while it puts
// records as fast as it can. After every kill, pairings.json must parse and validate, and every
// record the writer had reported durable must be in it, in at least the state it reported.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PairingStore, pairingsFileSchema } from '../../src/store/index.js';
import { makeStateDir } from './fixtures/sample-records.js';
import { startStoreProcess } from './fixtures/store-processes.js';

const KILLS = 40;

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await makeStateDir());
});
afterEach(async () => {
  await cleanup();
});

/** deviceId -> the furthest state the writer reported durable ('linked' outranks 'linking'). */
type Reported = Map<string, string>;

function noteDurable(line: string, reported: Reported): number | null {
  const match = /^durable (\S+) (linking|linked) (\d+)$/.exec(line);
  if (match === null) return null;
  const [, deviceId, state, writes] = match;
  if (reported.get(deviceId!) !== 'linked') reported.set(deviceId!, state!);
  return Number(writes);
}

async function checkFile(reported: Reported, run: number): Promise<number> {
  const raw = await readFile(path.join(dir, 'pairings.json'), 'utf8').catch((error: NodeJS.ErrnoException) => {
    // Killed before its first write: no file yet, and then nothing may have been reported durable.
    if (error.code === 'ENOENT' && reported.size === 0) return null;
    throw error;
  });
  if (raw === null) return 0;
  const parsed = pairingsFileSchema.safeParse(JSON.parse(raw));
  expect(parsed.success, `run ${run}: ${parsed.error?.message}`).toBe(true);
  const onDisk = new Map(parsed.data!.devices.map((device) => [device.deviceId, device.state]));
  for (const [deviceId, state] of reported) {
    const expected = state === 'linked' ? ['linked'] : ['linking', 'linked'];
    expect(expected, `run ${run}: ${deviceId} was reported durable as ${state}`).toContain(onDisk.get(deviceId));
  }
  return onDisk.size;
}

describe('a writer killed with SIGKILL at any instant', () => {
  it(`loses nothing it reported durable, over ${KILLS} kills`, async () => {
    const reported: Reported = new Map();
    let takeovers = 0;
    let leftoverTemporaries = 0;
    let largestStore = 0;
    for (let run = 0; run < KILLS; run += 1) {
      const writer = startStoreProcess('writer.mjs', [dir, `r${run}`]);
      const ready = await writer.waitForLine((line) => line.startsWith('ready'), 'the writer opened the store');
      if (ready.includes('takeover')) takeovers += 1;
      // Half the kills come a random moment after start-up, the other half once the writer has
      // made a random number of writes; neither is an assertion, only a way to vary the instant.
      if (run % 2 === 0) {
        await delay(Math.floor(Math.random() * 25));
      } else {
        const target = 1 + Math.floor(Math.random() * 40);
        await writer.waitForLine((line) => (noteDurable(line, new Map()) ?? 0) >= target, `${target} writes`);
      }
      writer.child.kill('SIGKILL');
      const { signal } = await writer.ended;
      expect(signal, `run ${run}: the writer ended on its own`).toBe('SIGKILL');
      for (const line of writer.lines) noteDurable(line, reported);
      if ((await readdir(dir)).some((name) => name.endsWith('.tmp'))) leftoverTemporaries += 1;
      largestStore = await checkFile(reported, run);
    }

    // Every writer after the first found its killed predecessor's lock and took it over.
    expect(takeovers).toBe(KILLS - 1);
    expect(reported.size).toBeGreaterThan(KILLS);

    const store = await PairingStore.open(dir);
    expect(store.lockTakeover?.reason).toMatch(/no longer runs/);
    for (const [deviceId, state] of reported) {
      if (state === 'linked') expect(store.get(deviceId)?.state, deviceId).toBe('linked');
      else expect(store.get(deviceId), deviceId).toBeDefined();
    }
    await store.close();
    expect((await readdir(dir)).filter((name) => name !== 'pairings.json')).toEqual([]);
    console.info(
      `crash test: ${KILLS} kills, ${reported.size} records reported durable, ${largestStore} on disk at the end, ` +
        `${leftoverTemporaries} kills left a temporary file behind (killed mid-write)`,
    );
  }, 180_000);
});
