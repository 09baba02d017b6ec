import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Authenticator } from '../../src/authentication/authenticator.js';
import { IMITATED_FOR_MS } from '../../src/authentication/keyed-state.js';
import { addGatewayBattery, parseGatewayMessage } from '../../src/discovery/ble-gateway.js';
import { startBleSource } from '../../src/discovery/ble.js';
import { startReplay } from '../../src/discovery/ble-replay.js';
import { readCapture } from '../../src/discovery/btsnoop.js';
import { loadNoble } from '../../src/discovery/noble-loader.js';
import { ProfileMatcher } from '../../src/discovery/profiles.js';
import type { Sighting } from '../../src/sighting.js';
import { VirtualHciSocket } from '../../src/discovery/virtual-hci-socket.js';
import { createCounters } from '../../src/status/counters.js';
import { silentLogger, type Logger } from '../../src/log/logger.js';
import { ButtonKeyStore } from '../../src/store/button-key-store.js';
import { adStructures, scanCapture, writeCapture } from '../support/btsnoop-writer.js';
import { captureLog } from '../support/log-capture.js';
import { waitFor } from '../support/wait.js';
import { encryptReport, VECTOR } from './bthome-vectors.js';

// The authenticator in front of supervision and the engine, fed by the
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
async function rig(options: { fileKeys?: Map<string, Buffer>; saved?: Map<string, number>; keyed?: boolean; keyRequired?: string[]; logger?: Logger; unheeded?: boolean } = {}) {
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
    ...(options.unheeded === true ? {} : { changed: (deviceId: string) => changed.push(deviceId) }),
    logger: options.logger ?? silentLogger(),
    clock: () => clock.now,
  });
  const report = (counter: number, extra: Partial<Sighting> = {}, objects = Buffer.from('0157', 'hex'), triggerBased = false): Sighting => ({
    deviceId: DEVICE,
    source: 'ble',
    at: clock.now,
    sealed: { data: encryptReport({ key: VECTOR.key, mac: VECTOR.mac, counter, objects, triggerBased }), address: VECTOR.mac.toLowerCase() },
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
    r.authenticator.sighting({ deviceId: 'OTHER1', source: 'ble', at: 1, profile: 'other' });
    expect(r.delivered.map((s) => s.deviceId)).toEqual(['PLAIN1', 'OTHER1']);
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

describe('what a keyed button’s reports become', () => {
  it('a verified report is handed on as a plain one: battery, battery low and the trigger bit only when it carries them', async () => {
    const r = await rig();
    r.authenticator.sighting(r.report(1, {}, Buffer.from('1501', 'hex'), true));
    r.authenticator.sighting(r.report(2, {}, Buffer.alloc(0)));
    expect(r.delivered).toStrictEqual([
      { deviceId: DEVICE, source: 'ble', at: r.clock.now, batteryLow: true, triggerBased: true },
      { deviceId: DEVICE, source: 'ble', at: r.clock.now },
    ]);
  });

  it('a refusal is logged with the device, the source, its kind and why, never the data', async () => {
    const log = captureLog();
    const r = await rig({ logger: log.logger });
    const forged = r.report(1);
    spoil(forged, 2);
    r.authenticator.sighting(forged);
    r.authenticator.sighting(r.report(10));
    r.clock.now += 20_000;
    r.authenticator.sighting(r.report(10, { source: 'ble-gateway:gw', at: r.clock.now }));
    const refusals = log.lines.filter((line) => line.level === 40).map(({ msg, deviceId, source, refusal, why }) => ({ msg, deviceId, source, refusal, why }));
    expect(refusals).toEqual([
      { msg: 'a report of a keyed button was refused (forged)', deviceId: DEVICE, source: 'ble', refusal: 'forged', why: 'the integrity check does not verify with the key' },
      { msg: 'a report of a keyed button was refused (replayed)', deviceId: DEVICE, source: 'ble-gateway:gw', refusal: 'replayed', why: 'its counter was counted already' },
    ]);
    // The last refusal a counter counted already, not one gone back: something imitating it.
    expect(r.authenticator.problems()).toEqual([`button ${DEVICE} imitated: reports of ${DEVICE} failed authentication: something may be imitating it`]);
    r.authenticator.sighting(r.report(9, { at: r.clock.now }));
    expect(log.lines.at(-1)).toMatchObject({ refusal: 'replayed', why: 'its counter went back' });
    expect(log.text()).not.toContain(VECTOR.key.toString('hex'));
    expect(log.text()).not.toContain(Buffer.from(forged.sealed!.data).toString('hex'));
  });

  it('a refusal with nobody listening for changes is counted all the same', async () => {
    const r = await rig({ unheeded: true });
    r.authenticator.sighting({ deviceId: DEVICE, source: 'mqtt', at: r.clock.now });
    expect(r.authenticator.imitated(DEVICE)).toBe(true);
  });
});

describe('what the hub says of a button', () => {
  it('of one it has no key for: nothing', async () => {
    const r = await rig();
    r.authenticator.linked('OTHER');
    expect(r.authenticator.fileKey('OTHER')).toBeUndefined();
    expect(r.authenticator.keyed('OTHER')).toBe(false);
    expect(r.authenticator.reports('OTHER')).toBeUndefined();
    expect(r.authenticator.imitated('OTHER')).toBe(false);
    expect(r.authenticator.counter('OTHER')).toBeUndefined();
    // Keyed, but nothing counted yet.
    expect(r.authenticator.counter(DEVICE)).toBeUndefined();
  });

  it('of one whose key is only in the keys file: nothing of its reports until it is linked, then the key is stored once', async () => {
    const r = await rig({ keyed: false, fileKeys: new Map([[DEVICE, VECTOR.key]]) });
    const set = vi.spyOn(r.keys, 'set');
    r.authenticator.sighting({ deviceId: DEVICE, source: 'mqtt', at: r.clock.now });
    expect(r.authenticator.reports(DEVICE)).toBeUndefined();
    expect(r.authenticator.imitated(DEVICE)).toBe(false);
    expect(r.authenticator.problems()).toEqual([]);
    expect(r.changed).toEqual([]);
    r.authenticator.linked(DEVICE);
    r.authenticator.linked(DEVICE);
    await waitFor(() => r.keys.has(DEVICE), { what: 'the key stored' });
    expect(set).toHaveBeenCalledTimes(1);
    expect(r.authenticator.fileKey(DEVICE)).toBeUndefined();
    expect(r.authenticator.imitated(DEVICE)).toBe(true);
  });

  it('a key that could not be stored is logged, and stored at the next link', async () => {
    const log = captureLog();
    const r = await rig({ keyed: false, fileKeys: new Map([[DEVICE, VECTOR.key]]), logger: log.logger });
    vi.spyOn(r.keys, 'set').mockRejectedValueOnce(new Error('disk full'));
    r.authenticator.linked(DEVICE);
    await waitFor(() => log.lines.some((line) => line.level === 50), { what: 'the error logged' });
    expect(log.lines.find((line) => line.level === 50)).toMatchObject({
      deviceId: DEVICE,
      err: 'disk full',
      msg: 'could not store the key of a linked button; PANIC_PAIR_BUTTON_KEYS_FILE still holds it',
    });
    expect(r.authenticator.keyed(DEVICE)).toBe(false);
    r.authenticator.linked(DEVICE);
    await waitFor(() => r.keys.has(DEVICE), { what: 'the key stored' });
    expect(r.authenticator.keyed(DEVICE)).toBe(true);
  });
});

describe('a button that needs a key', () => {
  it('tells the one listening for it, until it stops; an older listener stopping leaves the newer', async () => {
    const r = await rig({ keyed: false, keyRequired: ['bthome'] });
    const heard: string[] = [];
    const stopFirst = r.authenticator.whenKeyNeeded('BLU1', (profile) => heard.push(`first ${profile}`));
    r.authenticator.sighting({ deviceId: 'BLU1', source: 'ble', at: 1, profile: 'bthome' });
    const stopSecond = r.authenticator.whenKeyNeeded('BLU1', (profile) => heard.push(`second ${profile}`));
    stopFirst();
    r.authenticator.sighting({ deviceId: 'BLU1', source: 'ble', at: 2, profile: 'bthome' });
    stopSecond();
    r.authenticator.sighting({ deviceId: 'BLU1', source: 'ble', at: 3, profile: 'bthome' });
    expect(heard).toEqual(['first bthome', 'second bthome']);
  });
});

describe('adopting a key that verified a report', () => {
  it('stores it, counts the report and hands it on; the next counts only from its counter', async () => {
    const r = await rig({ keyed: false });
    const { sealed: _sealed, ...plain } = r.report(5);
    await r.authenticator.adopt(DEVICE, VECTOR.key, { ...plain, counter: 5 });
    expect(r.keys.get(DEVICE)).toEqual(VECTOR.key);
    expect(r.authenticator.keyed(DEVICE)).toBe(true);
    expect(r.authenticator.reports(DEVICE)).toEqual({ verified: 1, forged: 0, replayed: 0, plain: 0 });
    expect(r.authenticator.counter(DEVICE)).toBe(5);
    expect(r.delivered).toEqual([{ ...plain, counter: 5 }]);
    expect(r.changed).toEqual([]);
    r.clock.now += 20_000;
    r.authenticator.sighting(r.report(5, { at: r.clock.now }));
    r.authenticator.sighting(r.report(6, { at: r.clock.now }));
    expect(r.authenticator.reports(DEVICE)).toEqual({ verified: 2, forged: 0, replayed: 1, plain: 0 });
  });

  it('keeps the counts of the key before it, and tells that the button is no longer imitated', async () => {
    for (const unheeded of [false, true]) {
      const r = await rig({ unheeded });
      r.authenticator.sighting({ deviceId: DEVICE, source: 'mqtt', at: r.clock.now });
      expect(r.changed).toEqual(unheeded ? [] : [DEVICE]);
      r.clock.now += 1_000;
      const { sealed: _sealed, ...plain } = r.report(3);
      await r.authenticator.adopt(DEVICE, VECTOR.key, { ...plain, counter: 3 });
      expect(r.authenticator.reports(DEVICE)).toEqual({ verified: 1, forged: 0, replayed: 0, plain: 1 });
      expect(r.authenticator.imitated(DEVICE)).toBe(false);
      expect(r.changed).toEqual(unheeded ? [] : [DEVICE, DEVICE]);
    }
  });
});

describe('forgetting a button', () => {
  it('drops its stored key: its reports pass as a plain button’s', async () => {
    const r = await rig();
    await r.authenticator.forget(DEVICE);
    expect(r.keys.has(DEVICE)).toBe(false);
    expect(r.authenticator.keyed(DEVICE)).toBe(false);
    r.authenticator.sighting({ deviceId: DEVICE, source: 'mqtt', at: r.clock.now });
    expect(r.delivered).toHaveLength(1);
  });

  it('goes back to the key the keys file gives it, not stored, counting afresh', async () => {
    const r = await rig({ fileKeys: new Map([[DEVICE, VECTOR.key]]) });
    r.authenticator.sighting(r.report(8));
    await r.authenticator.forget(DEVICE);
    expect(r.authenticator.keyed(DEVICE)).toBe(false);
    expect(r.authenticator.fileKey(DEVICE)).toEqual(VECTOR.key);
    expect(r.authenticator.counter(DEVICE)).toBeUndefined();
    r.authenticator.sighting({ deviceId: DEVICE, source: 'mqtt', at: r.clock.now });
    expect(r.delivered).toHaveLength(1);
  });

  it('of a button it has no key for touches no key', async () => {
    const r = await rig();
    const remove = vi.spyOn(r.keys, 'remove');
    await r.authenticator.forget('OTHER');
    expect(remove).not.toHaveBeenCalled();
    expect(r.authenticator.keyed(DEVICE)).toBe(true);
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
