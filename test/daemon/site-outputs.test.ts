import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectAsync } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callDaemon } from '../../src/control/client.js';
import { CONTROL_SOCKET_NAME } from '../../src/config/locations.js';
import { desiredConfigs, type HubIdentity } from '../../src/mqtt/home-assistant-configs.js';
import type { HealthPayload } from '../../src/mqtt/topics.js';
import type { ButtonCounts, DeviceRow } from '../../src/supervision/types.js';
import { packageVersion } from '../../src/version.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { findLibfaketime, NO_FAKETIME } from '../support/faketime.js';
import { waitFor } from '../support/wait.js';

// A site of 1,000 linked buttons on one hub, Home Assistant on. After each step (the
// links, first reports, battery changes, forgets, three hours of silence for most of them, some
// heard again) the daemon's outputs are held to what a fresh computation from its state gives:
// `devices --json` to what the test did, and from those rows the health's button counts, every
// button's retained availability and the retained Home Assistant configs (desiredConfigs, the pure
// function). Kept button by button in the daemon, none of them may drift from it.
//
// The silence is three hours of the daemon's own clocks, monotonic ones included, moved forward
// by libfaketime while it runs (a button's deadline is never under a minute).

const library = findLibfaketime();
const COUNT = 1_000;
const HA = 'ha-site';
const LOW = 20;
const ids = Array.from({ length: COUNT }, (_, i) => `SITE-${String(i).padStart(4, '0')}`);
/** Buttons whose reports never carry a battery: no battery entity for them. */
const noBattery = (i: number): boolean => i % 20 === 0;

interface Expected {
  battery: number | null;
  supervision: 'online' | 'missing';
}

describe.skipIf(library === undefined)(`a site of ${COUNT} buttons: the outputs match the state after every change (${library ?? NO_FAKETIME})`, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-site-'));
  const clockFile = path.join(dir, 'faketime');
  const model = new Map<string, Expected>();
  let hub: DaemonHarness;

  beforeAll(async () => {
    writeFileSync(clockFile, '+0\n');
    hub = await startHarness({
      logLevel: 'warn',
      env: {
        PANIC_PAIR_HOMEASSISTANT: 'true',
        PANIC_PAIR_HOMEASSISTANT_PREFIX: HA,
        // Monotonic clocks move with the wall clock; the file is read at most once a second.
        LD_PRELOAD: library,
        FAKETIME_TIMESTAMP_FILE: clockFile,
        FAKETIME_CACHE_DURATION: '1',
      },
    });
    await retain(`${hub.prefix}/site-test/end`, 'end');
  });
  afterAll(async () => {
    await hub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const socket = (): string => path.join(hub.runtimeDir, CONTROL_SOCKET_NAME);

  async function retain(topic: string, payload: string): Promise<void> {
    const client = await connectAsync(hub.broker.url, { reconnectPeriod: 0 });
    await client.publishAsync(topic, payload, { qos: 1, retain: true });
    await client.endAsync();
  }

  /** What the broker holds under `filter` now: its retained messages, up to the end marker the
   * broker sends after them (retained messages come in the order of the subscriptions). */
  async function retained(filter: string): Promise<Map<string, string>> {
    const client = await connectAsync(hub.broker.url, { reconnectPeriod: 0 });
    const held = new Map<string, string>();
    const end = new Promise<void>((resolve) => {
      client.on('message', (topic, payload) => {
        if (topic === `${hub.prefix}/site-test/end`) resolve();
        else held.set(topic, payload.toString());
      });
    });
    await client.subscribeAsync(filter, { qos: 0 });
    await client.subscribeAsync(`${hub.prefix}/site-test/end`, { qos: 0 });
    await end;
    await client.endAsync();
    return held;
  }

  /** Reports of `which`, each acknowledged by the broker; the model learns the batteries. */
  async function report(which: number[], battery: (i: number) => number | undefined): Promise<void> {
    for (const i of which) {
      const level = noBattery(i) ? undefined : battery(i);
      await hub.announce(ids[i]!, level === undefined ? {} : { battery: level });
      const known = model.get(ids[i]!);
      if (known !== undefined) model.set(ids[i]!, { battery: level ?? known.battery, supervision: 'online' });
    }
  }

  async function forget(which: number[]): Promise<void> {
    for (const i of which) {
      await callDaemon(socket(), { type: 'forget', deviceId: ids[i]! }, { timeoutMs: 10_000 });
      model.delete(ids[i]!);
    }
  }

  /** Each output against the model and against what the rows say. */
  async function expectOutputsMatch(): Promise<void> {
    const counts: ButtonCounts = { linked: model.size, online: 0, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 };
    for (const expected of model.values()) {
      counts[expected.supervision]++;
      if (expected.battery !== null && expected.battery <= LOW) counts.batteryLow++;
    }
    // `status` first: the daemon has taken every change once its counts say so.
    await waitFor(async () => JSON.stringify((await hub.status()).buttons) === JSON.stringify(counts), { timeoutMs: 30_000, intervalMs: 100, what: `status buttons ${JSON.stringify(counts)}` });

    const rows = await hub.cliJson<DeviceRow[]>(['devices']);
    expect(rows.map((row) => row.deviceId).sort()).toEqual([...model.keys()].sort());
    expect(hub.storeRecords().map((record) => record.deviceId).sort()).toEqual([...model.keys()].sort());
    for (const row of rows) {
      const expected = model.get(row.deviceId)!;
      expect({ id: row.deviceId, state: row.state, supervision: row.supervision, battery: row.battery, batteryLow: row.batteryLow }).toEqual({
        id: row.deviceId,
        state: 'linked',
        supervision: expected.supervision,
        battery: expected.battery,
        batteryLow: expected.battery !== null && expected.battery <= LOW,
      });
    }

    const fromRows: ButtonCounts = { linked: rows.length, online: 0, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 };
    for (const row of rows) {
      fromRows[row.supervision!]++;
      if (row.batteryLow === true) fromRows.batteryLow++;
    }
    const health = async (): Promise<HealthPayload> => JSON.parse((await retained(`${hub.prefix}/health`)).get(`${hub.prefix}/health`) ?? '{}') as HealthPayload;
    await waitFor(async () => JSON.stringify((await health()).buttons) === JSON.stringify(fromRows), { timeoutMs: 10_000, intervalMs: 200, what: 'the retained health' });
    expect((await health()).devices).toMatchObject({ total: rows.length, linked: rows.length });

    const availability = new Map(rows.map((row) => [`${hub.prefix}/devices/${row.deviceId}/availability`, JSON.stringify({ state: row.supervision === 'online' ? 'online' : 'offline' })]));
    const sameAvailability = async (): Promise<boolean> => same(await retained(`${hub.prefix}/devices/+/availability`), availability);
    await waitFor(sameAvailability, { timeoutMs: 15_000, intervalMs: 200, what: 'every retained availability' }).catch(() => undefined);
    expect(sorted(await retained(`${hub.prefix}/devices/+/availability`))).toEqual(sorted(availability));

    const identity: HubIdentity = { prefix: hub.prefix, discoveryPrefix: HA, version: packageVersion() };
    const configs = desiredConfigs(identity, rows);
    const sameConfigs = async (): Promise<boolean> => same(await retained(`${HA}/+/+/+/config`), configs);
    await waitFor(sameConfigs, { timeoutMs: 15_000, intervalMs: 200, what: 'the retained Home Assistant configs' }).catch(() => undefined);
    expect(sorted(await retained(`${HA}/+/+/+/config`))).toEqual(sorted(configs));
  }

  it(`links ${COUNT} in one window; each heard again, its battery first known or changed`, async () => {
    const opened = await openWindow(socket(), 300);
    for (const [i, id] of ids.entries()) await hub.announce(id, i < COUNT / 2 && !noBattery(i) ? { battery: 80 } : {});
    await waitFor(async () => (await hub.status()).devices.linked === COUNT, { timeoutMs: 60_000, intervalMs: 200, what: `${COUNT} linked` });
    opened.close();
    for (const [i, id] of ids.entries()) model.set(id, { battery: i < COUNT / 2 && !noBattery(i) ? 80 : null, supervision: 'online' });
    await report(ids.map((_, i) => i), (i) => 60 + (i % 30));
    await expectOutputsMatch();
  });

  it('battery changes: some low, some back up', async () => {
    await report(range(0, 200), (i) => (i % 2 === 0 ? 10 + (i % 10) : 50));
    await report(range(0, 40), () => 90);
    await expectOutputsMatch();
  });

  it('forgets, one through the CLI; a late copy of a forgotten config is cleared', async () => {
    const before = await retained(`${HA}/+/+/+/config`);
    const cli = await hub.cli(['forget', ids[899]!]);
    expect(cli.code, cli.stderr).toBe(0);
    model.delete(ids[899]!);
    await forget(range(900, 950));
    // Another copy of a forgotten button's configs, as one on its way during the forget would come.
    for (const [topic, payload] of before) if (/SITE-09(0\d|49)\/config$/.test(topic)) await retain(topic, payload);
    await expectOutputsMatch();
  });

  it('three hours of silence for most, then some heard again and some forgotten while missing', async () => {
    const uptime = (await hub.status()).uptimeSeconds ?? 0;
    writeFileSync(clockFile, '+3h\n');
    await waitFor(async () => ((await hub.status()).uptimeSeconds ?? 0) > uptime + 3 * 3600, { what: "the daemon's clocks three hours on" });
    await report(range(0, 300), (i) => (i < 50 ? 30 : undefined));
    for (const [id, expected] of model) if (Number(id.slice(5)) >= 300) model.set(id, { ...expected, supervision: 'missing' });
    await expectOutputsMatch();
    await report(range(300, 400), (i) => (i % 3 === 0 ? 5 : undefined));
    await forget(range(950, 1000));
    await expectOutputsMatch();
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

function sorted(map: ReadonlyMap<string, string>): Array<[string, string]> {
  return [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function same(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}

/** A pairing window on the control socket, open until `close()` (the client going away closes it). */
async function openWindow(socketPath: string, seconds: number): Promise<{ close(): void }> {
  const client = createConnection({ path: socketPath });
  client.on('error', () => undefined);
  let lines = '';
  await new Promise<void>((resolve, reject) => {
    client.setEncoding('utf8');
    client.on('connect', () => client.write(`${JSON.stringify({ type: 'window', seconds })}\n`));
    client.on('data', (chunk: string) => {
      lines += chunk;
      if (/"type":"opened"/.test(lines)) resolve();
      if (/"type":"error"/.test(lines)) reject(new Error(lines));
    });
  });
  return { close: () => client.destroy() };
}
