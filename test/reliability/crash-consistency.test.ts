import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { pairingsFileSchema } from '../../src/store/index.js';
import type { DeviceRecord } from '../../src/store/record.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';
import { startApiRecorder, type ApiRecorder } from './support/api-recorder.js';
import { seededRandom, testSeed } from './support/seeded-random.js';

// What is never lost, under kill -9: a bulk pairing (automatic pairing, 60 buttons, an API with
// latency) is cut by SIGKILL at seeded random instants, a dozen times and more, and the daemon
// started again each time. After every kill, pairings.json parses and matches its schema, and
// every device the API received a POST for is on disk (the linking record is written before the
// request leaves). At the end: every device the API linked is linked in the store with a link id
// the API gave it, and no device was posted more than once plus once per kill that caught its
// request in flight (so at most twice for a device caught once).

const BUTTONS = 60;
const KILLS = 14;
const LATENCY_MS = 200;
const SEED = testSeed(0xc4a5_0001);

let hub: DaemonHarness | undefined;
let recorder: ApiRecorder | undefined;
afterAll(async () => {
  await hub?.close();
  await recorder?.close();
});

/** pairings.json as a killed daemon left it; fails the test when it does not parse or validate. */
function readStore(file: string, when: string): DeviceRecord[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${when}: pairings.json does not parse (seed ${SEED}): ${(error as Error).message}\n${text.slice(0, 500)}`);
  }
  const parsed = pairingsFileSchema.safeParse(value);
  if (!parsed.success) throw new Error(`${when}: pairings.json breaks the schema (seed ${SEED}): ${parsed.error.message}`);
  return parsed.data.devices;
}

/** Link ids the API handed out, by device, from the replies the recorder saw. */
function grantedLinks(api: ApiRecorder): Map<string, number[]> {
  const granted = new Map<string, number[]>();
  for (const exchange of api.exchanges) {
    if (exchange.method !== 'POST' || exchange.status === undefined || exchange.status >= 300) continue;
    const link = JSON.parse(exchange.responseBody ?? '{}') as { id: number; deviceId: string };
    granted.set(link.deviceId, [...(granted.get(link.deviceId) ?? []), link.id]);
  }
  return granted;
}

describe('kill -9 at random instants during a bulk pairing', () => {
  it(`loses no link and posts no device more than once per kill that caught it in flight (seed ${SEED})`, { timeout: 120_000 }, async () => {
    const random = seededRandom(SEED);
    const api = await startApiRecorder();
    recorder = api;
    hub = await startHarness({ logLevel: 'info', env: { PANIC_PAIR_AUTO_PAIR: 'true', PANIC_PAIR_API_URL: recorder.url } });
    recorder.setTarget(hub.simulator.url);
    const harness = hub;
    harness.simulator.setFaults({ latencyMs: LATENCY_MS });
    const ids = Array.from({ length: BUTTONS }, (_, i) => `CRASH-${String(i).padStart(2, '0')}`);
    const posts = (): Record<string, number> => harness.simulator.stats().postsByDevice;
    const totalPosts = (): number => Object.values(posts()).reduce((sum, n) => sum + n, 0);
    const caughtInFlight = new Map<string, number>();

    // Buttons are pressed a few at a time, so that the kills fall all along the bulk pairing; a
    // button pressed but never posted (its job died with the daemon) is pressed again.
    let pressed = 0;
    const announceUnposted = async (more: number): Promise<void> => {
      pressed = Math.min(BUTTONS, pressed + more);
      const posted = posts();
      for (const id of ids.slice(0, pressed)) if (posted[id] === undefined) await harness.announce(id);
    };

    const allLinked = (): boolean => readStore(harness.storeFile, 'waiting').filter((r) => r.state === 'linked').length === pressed;
    let intoRecovery = 0;
    let atArrival = 0;
    for (let kill = 1; kill <= KILLS; kill++) {
      // Mostly, the links a kill interrupted are finished first (each device is then caught in
      // flight once at most, and posted twice at most); a third of the kills fall into that recovery.
      if (kill > 1 && random.chance(0.33)) intoRecovery++;
      else await waitFor(() => !readStore(harness.storeFile, 'recovering').some((r) => r.state === 'linking'), { timeoutMs: 20_000, what: 'interrupted links to finish' });
      const pid = (await harness.status()).pid;
      await announceUnposted(random.int(3, 6));
      if (random.chance(0.4)) {
        // The earliest instant a request can be cut: as it reaches the API. Its device must be on disk.
        let arrived = false;
        api.onRequest = (method, path) => {
          if (arrived || method !== 'POST' || !path.endsWith('/devices')) return;
          arrived = true;
          process.kill(pid, 'SIGKILL');
        };
        await waitFor(() => arrived || allLinked(), { timeoutMs: 20_000, what: `a POST to reach the API (seed ${SEED})` });
        api.onRequest = undefined;
        if (arrived) atArrival++;
        else harness.kill('SIGKILL');
      } else {
        // After a random number of further POSTs, then a random part of the API's latency: kills
        // fall before, during and after requests, and while their outcome is being written.
        const target = totalPosts() + random.int(0, 4);
        await waitFor(() => totalPosts() >= target || allLinked(), {
          timeoutMs: 20_000,
          what: `POST number ${target}`,
        });
        await delay(random.int(0, LATENCY_MS + 50));
        harness.kill('SIGKILL');
      }
      expect((await harness.exited()).signal).toBe('SIGKILL');

      const records = readStore(harness.storeFile, `after kill ${kill}`);
      const onDisk = new Map(records.map((record) => [record.deviceId, record.state]));
      for (const [id, state] of onDisk) {
        expect(['linking', 'linked'], `${id} after kill ${kill}`).toContain(state);
        if (state === 'linking') caughtInFlight.set(id, (caughtInFlight.get(id) ?? 0) + 1);
      }
      for (const id of Object.keys(posts())) expect(onDisk.has(id), `${id} was posted but is not on disk after kill ${kill} (seed ${SEED})`).toBe(true);

      // Throws when the daemon does not start and answer again.
      await harness.restart();
    }

    await announceUnposted(BUTTONS);
    await waitFor(() => readStore(harness.storeFile, 'settling').filter((record) => record.state === 'linked').length === BUTTONS, {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: `all ${BUTTONS} buttons linked in the store after the last restart (seed ${SEED})`,
    });

    const store = new Map(readStore(harness.storeFile, 'at the end').map((record) => [record.deviceId, record]));
    const granted = grantedLinks(recorder);
    const counts = posts();
    expect([...granted.keys()].sort()).toEqual(ids);
    for (const id of ids) {
      const record = store.get(id);
      expect(record?.state, id).toBe('linked');
      expect(record?.customerId).toBe(42);
      expect(granted.get(id), `${id}: the store's link id is one the API gave it`).toContain(record?.linkId);
      const allowed = 1 + (caughtInFlight.get(id) ?? 0);
      expect(counts[id], `${id} posted ${counts[id]} times, caught in flight by ${allowed - 1} kills (seed ${SEED})`).toBeLessThanOrEqual(allowed);
    }
    // The store opened cleanly each time: no temporary file of a killed write is left behind.
    expect(readdirSync(harness.stateDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    const repeats = ids.filter((id) => (counts[id] ?? 0) > 1).length;
    const most = Math.max(...ids.map((id) => counts[id] ?? 0));
    process.stderr.write(
      `crash consistency (seed ${SEED}): ${KILLS} kills (${atArrival} as a POST arrived, ${intoRecovery} into a recovery), ${totalPosts()} POSTs for ${BUTTONS} buttons, ` +
        `${repeats} posted again after a kill, at most ${most} POSTs for one\n`,
    );
  });
});
