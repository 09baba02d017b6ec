import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCounters } from '../../src/status/counters.js';
import { parseAnnouncement } from '../../src/discovery/announce.js';
import { startBleSource } from '../../src/discovery/ble.js';
import { addGatewayBattery, parseGatewayMessage } from '../../src/discovery/ble-gateway.js';
import { addBthomeBattery, readBthome } from '../../src/discovery/bthome.js';
import { readLivenessWord } from '../../src/discovery/source-liveness.js';
import { addZigbeeBattery, parseDeviceList, readBridgeState, readDeviceReport } from '../../src/discovery/zigbee-devices.js';
import { parseCapture } from '../../src/discovery/btsnoop.js';
import { loadNoble } from '../../src/discovery/noble-loader.js';
import { ProfileMatcher, type Advertisement, type ProfileResult } from '../../src/discovery/profiles.js';
import { isValidDeviceId } from '../../src/device-id.js';
import type { Sighting } from '../../src/sighting.js';
import { VirtualHciSocket } from '../../src/discovery/virtual-hci-socket.js';
import { parseBridgeEvent } from '../../src/discovery/zigbee2mqtt.js';
import { PanicPairError } from '../../src/errors.js';
import { advertisingReportEvent, REPORT_TYPES } from '../support/btsnoop-writer.js';
import { captureLog } from '../support/log-capture.js';
import { waitFor } from '../support/wait.js';
import { writeScene } from '../discovery/fixtures/captures.js';
import { FUZZ_PROFILES } from './support/fuzz-profiles.js';
import { hostilePayload, randomJson, type HostileTarget } from './support/hostile-payloads.js';
import { seededRandom, testSeed, type SeededRandom } from './support/seeded-random.js';

// Hostile input, in process: thousands of seeded random inputs through every parser a neighbour
// can reach (announcements, BLE gateway messages, Zigbee2MQTT bridge events, the profile matcher,
// noble's advertisement parsing with our BLE source behind it, btsnoop captures). None may throw,
// what they accept must be well formed, and Object.prototype must stay as it was.

const RUNS = 4_000;
const SEED = testSeed(0x5eed_0001);
const SIGHTING_KEYS = new Set(['deviceId', 'source', 'at', 'rssi', 'deviceTypeId', 'battery', 'batteryLow', 'profile', 'retained', 'sealed', 'plainBthome', 'triggerBased']);
const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
const matcher = new ProfileMatcher(FUZZ_PROFILES);

afterEach(() => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  expect('polluted' in {}).toBe(false);
  expect('isAdmin' in {}).toBe(false);
});

/** Runs `body` on `RUNS` inputs; a throw names the seed and the input, so it can be replayed. */
function fuzz<T>(name: string, make: (random: SeededRandom) => T, body: (input: T) => void, runs = RUNS): void {
  const random = seededRandom(SEED);
  for (let run = 0; run < runs; run++) {
    const input = make(random);
    try {
      body(input);
    } catch (error) {
      const shown = Buffer.isBuffer(input) ? input.subarray(0, 200).toString('hex') : JSON.stringify(input)?.slice(0, 400);
      throw new Error(`${name}: run ${run} with seed ${SEED} failed on ${shown}: ${(error as Error).stack ?? String(error)}`);
    }
  }
}

function expectWellFormedMatch(result: ProfileResult | undefined): void {
  if (result?.ok === true) expect(isValidDeviceId(result.deviceId), result.deviceId).toBe(true);
  if (result?.ok === false) expect(typeof result.invalid).toBe('string');
}

function expectWellFormedSighting(sighting: Sighting): void {
  expect(isValidDeviceId(sighting.deviceId)).toBe(true);
  expect(Object.getPrototypeOf(sighting)).toBe(Object.prototype);
  for (const key of Object.keys(sighting)) expect(SIGHTING_KEYS.has(key), key).toBe(true);
  if (sighting.rssi !== undefined) expect(sighting.rssi >= -127 && sighting.rssi <= 20).toBe(true);
  if (sighting.deviceTypeId !== undefined) expect(Number.isSafeInteger(sighting.deviceTypeId)).toBe(true);
  // Encrypted BTHome is handed on whole, for the button's key: bytes and the address they came from.
  if (sighting.sealed !== undefined) expect(sighting.sealed.data instanceof Uint8Array && typeof sighting.sealed.address === 'string').toBe(true);
  if (sighting.battery !== undefined) expect(sighting.battery >= 0 && sighting.battery <= 100, String(sighting.battery)).toBe(true);
  if (sighting.batteryLow !== undefined) expect(typeof sighting.batteryLow).toBe('boolean');
}

const payloads = (target: HostileTarget) => (random: SeededRandom) => hostilePayload(random, target);

describe('MQTT payloads from anyone on the broker', () => {
  it('announcements: never throws; accepts only well-formed sightings; rejects the rest', () => {
    const tally = { valid: 0, invalid: 0 };
    fuzz('parseAnnouncement', payloads('announce'), (payload) => {
      const result = parseAnnouncement(payload, 0);
      if ('invalid' in result) {
        tally.invalid++;
        expect(typeof result.invalid).toBe('string');
      } else {
        tally.valid++;
        expectWellFormedSighting(result);
      }
    });
    // The generator reaches both sides, or the run proves little.
    expect(tally.valid).toBeGreaterThan(RUNS / 20);
    expect(tally.invalid).toBeGreaterThan(RUNS / 2);
  });

  it('BLE gateway messages: never throw, through the parser and every profile', () => {
    const tally = { reports: 0, matched: 0 };
    fuzz('parseGatewayMessage', payloads('gateway'), (payload) => {
      const report = parseGatewayMessage(payload);
      if ('invalid' in report) return;
      tally.reports++;
      const match = matcher.advertisement(report.advertisement, report.address);
      if (match?.ok) {
        tally.matched++;
        const sighting: Sighting = { deviceId: match.deviceId, source: 'ble-gateway:fuzz', at: 0 };
        addGatewayBattery(sighting, report);
        expectWellFormedSighting(sighting);
      }
      expectWellFormedMatch(match);
    });
    expect(tally.reports).toBeGreaterThan(RUNS / 20);
    expect(tally.matched).toBeGreaterThan(0);
  });

  it('Zigbee2MQTT bridge events: never throw, through the parser and the Zigbee profile', () => {
    const tally = { joined: 0, matched: 0 };
    fuzz('parseBridgeEvent', payloads('zigbee'), (payload) => {
      const event = parseBridgeEvent(payload);
      if (!('joined' in event)) return;
      tally.joined++;
      const match = matcher.zigbee(event.joined.definition, event.joined.ieeeAddress);
      if (match?.ok) tally.matched++;
      expectWellFormedMatch(match);
    });
    expect(tally.joined).toBeGreaterThan(0);
    expect(tally.matched).toBeGreaterThan(0);
  });

  it('Zigbee2MQTT device lists, device reports and bridge state; gateways\' last wills: never throw', () => {
    const tally = { lists: 0, reports: 0, states: 0 };
    fuzz('Zigbee2MQTT and last wills', payloads('zigbee'), (payload) => {
      const list = parseDeviceList(payload);
      if (Array.isArray(list)) tally.lists++;
      else expect(typeof list.invalid).toBe('string');
      const report = readDeviceReport(payload);
      if (!('invalid' in report)) {
        tally.reports++;
        const sighting: Sighting = { deviceId: '0x00124b00088ccd58', source: 'zigbee2mqtt', at: 0 };
        addZigbeeBattery(sighting, report);
        expectWellFormedSighting(sighting);
      }
      for (const up of [readBridgeState(payload), readLivenessWord(payload)]) {
        if (typeof up === 'boolean') tally.states++;
        else expect(typeof up.invalid).toBe('string');
      }
    });
    expect(tally.reports).toBeGreaterThan(RUNS / 20);
  });

  it('a __proto__ key is an own property of the message, never a prototype', () => {
    const payload = Buffer.from('{"__proto__":{"polluted":"yes","deviceId":"EVIL"},"constructor":{"prototype":{"polluted":"yes"}},"deviceId":"SAFE-1"}');
    const result = parseAnnouncement(payload, 0);
    expect(result).toEqual({ deviceId: 'SAFE-1', source: 'mqtt', at: 0 });
  });
});

describe('BLE advertisement data', () => {
  it('the profile matcher: never throws on random advertisements and addresses', () => {
    fuzz(
      'ProfileMatcher.advertisement',
      (random) => ({ advertisement: randomAdvertisement(random), address: random.pick(['c4:64:9f:5e:94:54', String(randomJson(random, 0)), '']) }),
      ({ advertisement, address }) => expectWellFormedMatch(matcher.advertisement(advertisement, address)),
    );
  });

  describe('through noble, as the hub radio hears it', () => {
    let socket: VirtualHciSocket;
    let source: ReturnType<typeof startBleSource> | undefined;
    const counters = createCounters();
    const sightings: Sighting[] = [];
    let skip = '';

    beforeAll(async () => {
      socket = new VirtualHciSocket();
      let radio;
      try {
        radio = loadNoble({ hciDevice: 0, socket });
      } catch (error) {
        skip = `noble cannot be loaded here (${(error as Error).message})`;
        return;
      }
      source = startBleSource({ radio, matcher, source: 'ble', adapter: 'hci0', counters, logger: captureLog().logger, onSighting: (s) => sightings.push(s) });
      radio.open();
      await waitFor(() => source?.condition().state === 'scanning', { what: 'the virtual scan to start' });
    });
    afterAll(() => source?.stop());

    it('random AD structures in every report: nothing escapes, the source goes on scanning', (context) => {
      if (skip !== '') context.skip(skip);
      // noble catches what its own parser throws and says so with console.warn; counted here.
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        fuzz('noble advertising reports', randomReport, (report) => {
          expect(socket.deliver(Buffer.concat([Buffer.of(0x04), advertisingReportEvent(report)]))).toBe(true);
        });
        process.stderr.write(`noble caught ${warn.mock.calls.length} of ${RUNS} fuzzed reports in its own parser (console.warn)\n`);
      } finally {
        warn.mockRestore();
      }
      // noble holds back a scannable device until its scan response, and drops what it cannot parse.
      expect(counters.announcements).toBeGreaterThan(RUNS / 4);
      expect(sightings.length).toBeGreaterThan(0);
      for (const sighting of sightings) expectWellFormedSighting(sighting);
      expect(source?.condition().state).toBe('scanning');
    });
  });
});

describe('BTHome service data', () => {
  it('never throws; a battery read is always 0 to 100', () => {
    const tally = { batteries: 0 };
    fuzz('readBthome', (random) => {
      const bytes = random.bytes(random.int(0, 31));
      // Mostly version 2, unencrypted, so the objects are read.
      if (bytes.length > 0 && random.chance(0.8)) bytes[0] = 0x40 | (bytes[0]! & 0x06);
      if (bytes.length > 1 && random.chance(0.3)) bytes[1] = random.pick([0x00, 0x01, 0x15, 0x53, 0x54]);
      return bytes;
    }, (bytes) => {
      const reading = readBthome(bytes);
      if ('invalid' in reading) return expect(typeof reading.invalid).toBe('string');
      if (reading.battery !== undefined) tally.batteries++;
      const sighting: Sighting = { deviceId: 'A', source: 'ble', at: 0 };
      addBthomeBattery(sighting, reading);
      expectWellFormedSighting(sighting);
    });
    expect(tally.batteries).toBeGreaterThan(0);
  });
});

describe('btsnoop captures (PANIC_PAIR_BLE_REPLAY)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-fuzz-capture-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a mangled capture is read or refused with a configuration error, never anything else', () => {
    const good = writeScene(path.join(dir, 'scene.btsnoop'), 2001, { buttons: [{ id: 'CAP1', address: 'c4:64:9f:5e:94:54', rssi: -50 }], phones: 2 });
    const tally = { read: 0, refused: 0 };
    fuzz('parseCapture', (random) => mangleCapture(random, good), (bytes) => {
      try {
        parseCapture(bytes, 'fuzz.btsnoop');
        tally.read++;
      } catch (error) {
        expect(error).toBeInstanceOf(PanicPairError);
        expect((error as PanicPairError).kind).toBe('config');
        tally.refused++;
      }
    }, 1_500);
    expect(tally.read).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  });
});

function randomAdvertisement(random: SeededRandom): Advertisement {
  const advertisement: Advertisement = {};
  if (random.chance(0.7)) advertisement.localName = random.chance(0.5) ? `PANIC-${random.text('AZaz09._:-/ é\u0000', random.int(0, 80))}` : String(randomJson(random, 0));
  if (random.chance(0.4)) advertisement.serviceUuids = Array.from({ length: random.int(0, 4) }, () => random.pick(['fcd2', 'fd2', random.bytes(random.int(0, 18)).toString('hex')]));
  if (random.chance(0.4)) advertisement.serviceData = Array.from({ length: random.int(0, 3) }, () => ({ uuid: random.pick(['fcd2', '0000fcd2', random.bytes(2).toString('hex')]), data: random.bytes(random.int(0, 27)) }));
  if (random.chance(0.6)) {
    const bytes = random.bytes(random.int(0, 40));
    if (random.chance(0.5) && bytes.length >= 2) bytes.writeUInt16LE(0x0059, 0);
    // A view into a larger buffer, as noble hands out slices of the HCI packet.
    advertisement.manufacturerData = random.chance(0.5) ? bytes : Buffer.concat([random.bytes(7), bytes]).subarray(7);
  }
  return advertisement;
}

const AD_TYPES = [0x01, 0x02, 0x03, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x14, 0x15, 0x16, 0x1f, 0x20, 0x21, 0xff];

/** Legacy advertising data (at most 31 bytes), AD structures of random type and length, some lying. */
function randomAdData(random: SeededRandom): Buffer {
  const parts: Buffer[] = [];
  let room = 31;
  while (room >= 2 && random.chance(0.8)) {
    const type = random.chance(0.9) ? random.pick(AD_TYPES) : random.int(0, 255);
    const valueLength = random.int(0, Math.min(room - 2, random.chance(0.3) ? 1 : 29));
    const value = type === 0x09 && random.chance(0.5) ? Buffer.from(`PANIC-${random.text('ABCDEF0123456789', valueLength)}`).subarray(0, valueLength) : random.bytes(valueLength);
    const declared = random.chance(0.85) ? valueLength + 1 : random.int(0, 255);
    parts.push(Buffer.from([declared, type]), value);
    room -= 2 + valueLength;
  }
  return Buffer.concat(parts);
}

function randomReport(random: SeededRandom) {
  const address = Array.from({ length: 6 }, () => random.int(0, 255).toString(16).padStart(2, '0')).join(':');
  const type = random.pick(Object.keys(REPORT_TYPES) as Array<keyof typeof REPORT_TYPES>);
  return { address, type, random: random.chance(0.5), rssi: random.int(-127, 20), data: randomAdData(random) };
}

function mangleCapture(random: SeededRandom, good: Buffer): Buffer {
  const copy = Buffer.from(good);
  const edit = random.int(0, 3);
  if (edit === 0) return copy.subarray(0, random.int(0, copy.length));
  if (edit === 1) return random.bytes(random.int(0, 200));
  for (let flips = random.int(1, 8); flips > 0; flips--) copy[random.int(0, copy.length - 1)] = random.int(0, 255);
  return edit === 2 ? copy : Buffer.concat([copy, random.bytes(random.int(1, 40))]);
}
