import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/authentication/authenticator.js';
import { IMITATED_FOR_MS } from '../../src/authentication/keyed-state.js';
import { addGatewayBattery, parseGatewayMessage } from '../../src/discovery/ble-gateway.js';
import { startBleSource } from '../../src/discovery/ble.js';
import { startReplay } from '../../src/discovery/ble-replay.js';
import { readCapture } from '../../src/discovery/btsnoop.js';
import { loadNoble } from '../../src/discovery/noble-loader.js';
import { ProfileMatcher } from '../../src/discovery/profiles.js';
import type { Sighting } from '../../src/discovery/sighting.js';
import { VirtualHciSocket } from '../../src/discovery/virtual-hci-socket.js';
import { createCounters } from '../../src/status/counters.js';
import { silentLogger } from '../../src/log/logger.js';
import { ButtonKeyStore } from '../../src/store/button-key-store.js';
import { adStructures, scanCapture, writeCapture } from '../support/btsnoop-writer.js';
import { waitFor } from '../support/wait.js';
import { encryptReport, VECTOR } from './bthome-vectors.js';

// The authenticator in front of supervision and the engine (CONTRACT.md section 19), fed by the
// sources as they are: noble parsing a replayed capture, and a gateway's BTtoMQTT message.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-authenticator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DEVICE = VECTOR.mac; // a profile that takes the deviceId from the address: upper case
const PROFILE = { name: 'bthome', match: { serviceUuid: 'fcd2' }, deviceId: { from: 'address' as const } };

let stateDirs = 0;
/** One bit of the encrypted data changed, as a forger's guess would. */
const spoil = (sighting: Sighting, index: number): void => {
  const data = sighting.sealed!.data;
  data[index] = data[index]! ^ 0x01;
};
async function rig(options: { fileKeys?: Map<string, Buffer>; saved?: Map<string, number>; keyed?: boolean; keyRequired?: string[] } = {}) {
  const stateDir = path.join(dir, `state-${++stateDirs}`);
  mkdirSync(stateDir);
  const keys = await ButtonKeyStore.open(stateDir);
  if (options.keyed !== false) await keys.set(DEVICE, VECTOR.key);
  const clock = { now: 1_000_000 };
  const delivered: Sighting[] = [];
  const heardOnly: Sighting[] = [];
  const changed: string[] = [];
  const counters = createCounters();
  const authenticator = new Authenticator({
    keys,
    fileKeys: options.fileKeys ?? new Map(),
    savedCounters: options.saved ?? new Map(),
    keyRequired: new Set(options.keyRequired ?? []),
    counters,
    deliver: (sighting) => delivered.push(sighting),
    hearOnly: (sighting) => heardOnly.push(sighting),
    changed: (deviceId) => changed.push(deviceId),
    logger: silentLogger(),
    clock: () => clock.now,
  });
  const report = (counter: number, extra: Partial<Sighting> = {}): Sighting => ({
    deviceId: DEVICE,
    source: 'ble',
    at: clock.now,
    sealed: { data: encryptReport({ key: VECTOR.key, mac: VECTOR.mac, counter, objects: Buffer.from('0157', 'hex') }), address: VECTOR.mac.toLowerCase() },
    ...extra,
  });
  return { authenticator, clock, delivered, heardOnly, changed, counters, report, keys };
}

describe('a keyed button', () => {
  it('counts only its verified reports, with their battery; forged, replayed and plain ones are counted and go nowhere', async () => {
    const r = await rig();
    r.authenticator.sighting(r.report(10));
    expect(r.delivered).toHaveLength(1);
    expect(r.delivered[0]).toMatchObject({ deviceId: DEVICE, battery: 87 });
    expect(r.delivered[0]).not.toHaveProperty('sealed');
    // The same report through a second source within 10 s: heard, counted once.
    r.clock.now += 2_000;
    r.authenticator.sighting(r.report(10, { source: 'ble-gateway:gw', at: r.clock.now }));
    expect(r.delivered).toHaveLength(2);
    expect(r.authenticator.reports(DEVICE)).toEqual({ verified: 1, forged: 0, replayed: 0, plain: 0 });
    expect(r.authenticator.imitated(DEVICE)).toBe(false);

    r.clock.now += 20_000;
    const forged = r.report(11, { at: r.clock.now });
    spoil(forged, 2);
    r.authenticator.sighting(forged);
    r.authenticator.sighting(r.report(10, { at: r.clock.now })); // played back after 10 s
    r.authenticator.sighting({ deviceId: DEVICE, source: 'mqtt', at: r.clock.now }); // an announcement
    expect(r.delivered).toHaveLength(2);
    expect(r.authenticator.reports(DEVICE)).toEqual({ verified: 1, forged: 1, replayed: 1, plain: 1 });
    expect([r.counters.forged, r.counters.replayed, r.counters.plain]).toEqual([1, 1, 1]);
    expect(r.changed).toEqual([DEVICE]);
    expect(r.authenticator.problems()).toEqual([`button ${DEVICE} imitated: reports of ${DEVICE} failed authentication: something may be imitating it`]);
    // An hour without a refusal: no longer imitated.
    r.clock.now += IMITATED_FOR_MS;
    expect(r.authenticator.imitated(DEVICE)).toBe(false);
    expect(r.authenticator.problems()).toEqual([]);
  });

  it('a counter gone back says what to do', async () => {
    const r = await rig({ saved: new Map([[DEVICE, 5000]]) });
    r.authenticator.sighting(r.report(3));
    expect(r.delivered).toHaveLength(0);
    expect(r.authenticator.problems()).toEqual([`button ${DEVICE} imitated: counter went back (battery changed?): pair it again with its key`]);
  });

  it('a saved counter is never counted again, however soon after the restart', async () => {
    const r = await rig({ saved: new Map([[DEVICE, 10]]) });
    r.authenticator.sighting(r.report(10));
    expect(r.delivered).toHaveLength(0);
    expect(r.authenticator.reports(DEVICE)?.replayed).toBe(1);
    r.authenticator.sighting(r.report(11));
    expect(r.delivered).toHaveLength(1);
    expect(r.authenticator.counter(DEVICE)).toBe(11);
  });
});

describe('buttons without a key', () => {
  it('pass as they are; a profile with keyRequired is heard but never handed to pairing', async () => {
    const r = await rig({ keyed: false, keyRequired: ['bthome'] });
    r.authenticator.sighting({ deviceId: 'PLAIN1', source: 'ble', at: 1 });
    r.authenticator.sighting({ deviceId: 'BLU1', source: 'ble', at: 1, profile: 'bthome' });
    expect(r.delivered.map((s) => s.deviceId)).toEqual(['PLAIN1']);
    expect(r.heardOnly.map((s) => s.deviceId)).toEqual(['BLU1']);
    expect(r.authenticator.keyed('PLAIN1')).toBe(false);
  });

  it('one with a key in PANIC_PAIR_BUTTON_KEYS_FILE is verified before pairing hears it, and its key is stored once linked', async () => {
    const r = await rig({ keyed: false, fileKeys: new Map([[DEVICE, VECTOR.key]]) });
    expect(r.authenticator.fileKey(DEVICE)).toEqual(VECTOR.key);
    const forged = r.report(1);
    spoil(forged, 3);
    r.authenticator.sighting(forged);
    expect(r.delivered).toHaveLength(0);
    r.authenticator.sighting(r.report(2));
    expect(r.delivered).toHaveLength(1);
    r.authenticator.linked(DEVICE);
    await waitFor(() => r.keys.has(DEVICE), { what: 'the key stored' });
    expect(r.authenticator.keyed(DEVICE)).toBe(true);
  });
});

describe('pairing with a key', () => {
  it('the next report with BTHome data settles the trial: verified (any counter) or not', async () => {
    const r = await rig({ keyed: false });
    const trial = r.authenticator.tryKey(DEVICE, VECTOR.key);
    r.authenticator.sighting({ deviceId: DEVICE, source: 'mqtt', at: 1 }); // no BTHome: settles nothing
    r.authenticator.sighting(r.report(77));
    const outcome = await trial.outcome;
    expect(outcome).toMatchObject({ verified: true, report: { counter: 77, battery: 87 } });
    const wrong = r.authenticator.tryKey(DEVICE, Buffer.alloc(16, 1));
    r.authenticator.sighting(r.report(78));
    expect(await wrong.outcome).toMatchObject({ verified: false, why: 'the integrity check does not verify with the key' });
    const plain = r.authenticator.tryKey(DEVICE, VECTOR.key);
    r.authenticator.sighting({ deviceId: DEVICE, source: 'ble', at: 1, plainBthome: true });
    expect(await plain.outcome).toMatchObject({ verified: false });
  });
});

describe('from every BLE source', () => {
  it("the hub's radio (noble's own parsing of a replayed capture) hands on the data and the address", async () => {
    const file = path.join(dir, 'keyed.btsnoop');
    const data = encryptReport({ key: VECTOR.key, mac: VECTOR.mac, counter: 9, objects: Buffer.from('0157', 'hex') });
    const report = { address: VECTOR.mac.toLowerCase(), type: 'ADV_NONCONN_IND' as const, rssi: -50, data: adStructures({ flags: 0x06, serviceData16: { uuid: 0xfcd2, data } }) };
    writeCapture(file, 2001, scanCapture([{ atMs: 0, report }]));
    const socket = new VirtualHciSocket();
    const radio = loadNoble({ hciDevice: 0, socket });
    const r = await rig();
    const source = startBleSource({ radio, matcher: new ProfileMatcher([PROFILE]), source: 'ble', adapter: 'replay', counters: createCounters(), logger: silentLogger(), onSighting: (s) => r.authenticator.sighting(s) });
    radio.open();
    await waitFor(() => source.condition().state === 'scanning', { what: 'the scan to start' });
    const replay = startReplay({ capture: await readCapture(file), socket, loopPauseMs: 60_000 });
    try {
      await waitFor(() => r.delivered.length > 0, { what: 'the verified report' });
      expect(r.delivered[0]).toMatchObject({ deviceId: DEVICE, battery: 87, source: 'ble' });
      expect(r.authenticator.counter(DEVICE)).toBe(9);
    } finally {
      replay.stop();
      source.stop();
    }
  });

  it("a gateway's BTtoMQTT servicedata, with its id as the MAC", async () => {
    const r = await rig();
    const data = encryptReport({ key: VECTOR.key, mac: VECTOR.mac, counter: 12, objects: Buffer.from('0157', 'hex') });
    const parsed = parseGatewayMessage(Buffer.from(JSON.stringify({ id: VECTOR.mac, rssi: -60, servicedatauuid: '0xfcd2', servicedata: data.toString('hex') })));
    if ('invalid' in parsed) throw new Error(parsed.invalid);
    const sighting: Sighting = { deviceId: DEVICE, source: 'ble-gateway:gw', at: 5 };
    addGatewayBattery(sighting, parsed);
    r.authenticator.sighting(sighting);
    expect(r.delivered).toEqual([{ deviceId: DEVICE, source: 'ble-gateway:gw', at: 5, battery: 87 }]);
  });
});
