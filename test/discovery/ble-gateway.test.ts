import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, profilesSchema, type Profile } from '../../src/config/profile.js';
import { createCounters } from '../../src/status/counters.js';
import { addGatewayBattery, gatewayName, gatewayNameOfWill, MAX_GATEWAY_SOURCES, OTHER_GATEWAYS, parseGatewayMessage, startBleGatewaySource } from '../../src/discovery/ble-gateway.js';
import { ProfileMatcher } from '../../src/discovery/profiles.js';
import type { Sighting } from '../../src/sighting.js';
import { connectMqtt } from '../../src/mqtt/connection.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { captureLog } from '../support/log-capture.js';
import { publishOnce, untilSubscribed } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// BLE gateways publishing in the BTtoMQTT format: Theengs Gateway and OpenMQTTGateway, shapes as
// their projects document them (fixtures/mqtt-payloads.md), varied.

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const THEENGS_PHONE = { id: '54:94:5E:9F:64:C4', mac_type: 1, manufacturerdata: '4c0010060319247bbc68', rssi: -74, txpower: 12 };
const OMG_BEACON = { id: '58:78:20:76:BC:24', mac_type: 1, rssi: -79, brand: 'GENERIC', model: 'iBeacon', model_id: 'IBEACON', mfid: '4c00', txpower: -66 };

describe('parseGatewayMessage', () => {
  it.each<[string, unknown, unknown]>([
    ['Theengs: manufacturer data as hex', THEENGS_PHONE, { address: '54:94:5E:9F:64:C4', rssi: -74, advertisement: { manufacturerData: Buffer.from('4c0010060319247bbc68', 'hex') } }],
    ['OpenMQTTGateway decoded: only the company id', OMG_BEACON, { address: '58:78:20:76:BC:24', rssi: -79, advertisement: { manufacturerData: Buffer.from('4c00', 'hex') } }],
    ['Theengs: name and service data, uuid without 0x', { id: 'C4:64:9F:5E:94:54', name: 'PANIC-7F3A9C', servicedatauuid: 'fcd2', servicedata: '40', rssi: -58 }, { address: 'C4:64:9F:5E:94:54', rssi: -58, advertisement: { localName: 'PANIC-7F3A9C', serviceData: [{ uuid: 'fcd2', data: Buffer.from('40', 'hex') }] } }],
    ['OpenMQTTGateway: uuid with 0x', { id: 'C4:64:9F:5E:94:54', servicedatauuid: '0xFDCD', servicedata: '0201' }, { address: 'C4:64:9F:5E:94:54', advertisement: { serviceData: [{ uuid: 'fdcd', data: Buffer.from('0201', 'hex') }] } }],
    ['Theengs: a decoded battery', { id: 'C4:64:9F:5E:94:54', name: 'PANIC-7F3A9C', batt: 88 }, { address: 'C4:64:9F:5E:94:54', batt: 88, advertisement: { localName: 'PANIC-7F3A9C' } }],
    ['a service data uuid without data', { id: 'C4:64:9F:5E:94:54', servicedatauuid: 'fcd2' }, { address: 'C4:64:9F:5E:94:54', advertisement: { serviceData: [{ uuid: 'fcd2' }] } }],
  ])('%s', (_name, payload, expected) => {
    expect(parseGatewayMessage(json(payload))).toEqual(expected);
  });

  it.each<[string, Buffer, string]>([
    ['not JSON', Buffer.from('online'), 'not JSON'],
    ['an array', json([1]), 'not a JSON object'],
    ['no id', json({ rssi: -50 }), 'id must be the device address, 1 to 64 characters'],
    ['an rssi out of range', json({ id: 'A', rssi: 50 }), 'rssi must be a number from -127 to 20 (dBm)'],
    ['an rssi as text', json({ id: 'A', rssi: '-50' }), 'rssi must be a number from -127 to 20 (dBm)'],
    ['a name that is not text', json({ id: 'A', name: 5 }), 'name must be a string'],
    ['odd hex', json({ id: 'A', manufacturerdata: '4c0' }), 'manufacturerdata must be hex digits, two a byte'],
    ['not hex', json({ id: 'A', servicedata: 'zz' }), 'servicedata must be hex digits, two a byte'],
    ['a broken uuid', json({ id: 'A', servicedatauuid: '0xfc' }), 'servicedatauuid must be a 16-, 32- or 128-bit UUID in hex, with or without 0x'],
    ['a huge message', Buffer.alloc(5000, 0x20), 'larger than 4096 bytes (5000)'],
  ])('refuses %s', (_name, payload, reason) => {
    expect(parseGatewayMessage(payload)).toEqual({ invalid: reason });
  });

  it('takes a battery from BTHome service data first, then Theengs\' batt, and counts one out of range', () => {
    const battery = (payload: object): [Sighting, boolean] => {
      const report = parseGatewayMessage(json({ id: 'C4:64:9F:5E:94:54', name: 'PANIC-7F3A9C', ...payload }));
      if ('invalid' in report) throw new Error(report.invalid);
      const sighting: Sighting = { deviceId: '7F3A9C', source: 'ble-gateway:gw', at: 1 };
      return [sighting, addGatewayBattery(sighting, report)];
    };
    // Theengs: 16-bit uuid without 0x; OpenMQTTGateway: with 0x; a 128-bit spelling too.
    expect(battery({ servicedatauuid: 'fcd2', servicedata: '4400210140' })).toEqual([{ deviceId: '7F3A9C', source: 'ble-gateway:gw', at: 1, battery: 64, plainBthome: true, triggerBased: true }, false]);
    expect(battery({ servicedatauuid: '0xfcd2', servicedata: '4001091501' })).toEqual([{ deviceId: '7F3A9C', source: 'ble-gateway:gw', at: 1, battery: 9, batteryLow: true, plainBthome: true }, false]);
    expect(battery({ servicedatauuid: '0000fcd2-0000-1000-8000-00805f9b34fb', servicedata: '400132' })).toMatchObject([{ battery: 50 }, false]);
    expect(battery({ servicedatauuid: 'fcd2', servicedata: '400150', batt: 12 })).toMatchObject([{ battery: 80 }, false]);
    expect(battery({ batt: 77 })).toMatchObject([{ battery: 77 }, false]);
    expect(battery({ batt: 0 })).toMatchObject([{ battery: 0 }, false]);
    // Out of range or no number: the value dropped, counted, the sighting kept.
    for (const batt of [101, -1, '50', null, true]) {
      const [sighting, dropped] = battery({ batt });
      expect(dropped).toBe(true);
      expect(sighting).not.toHaveProperty('battery');
    }
    expect(battery({ servicedatauuid: 'fcd2', servicedata: '4001c8' })).toEqual([{ deviceId: '7F3A9C', source: 'ble-gateway:gw', at: 1, plainBthome: true }, true]);
    // Not BTHome (another uuid), encrypted BTHome: no battery, nothing dropped; encrypted data is
    // handed on with the gateway's id as the address, for the button's key.
    expect(battery({ servicedatauuid: 'fe95', servicedata: '400150' })).toEqual([{ deviceId: '7F3A9C', source: 'ble-gateway:gw', at: 1 }, false]);
    expect(battery({ servicedatauuid: 'fcd2', servicedata: '41a47266c95f730011223378237214' })).toEqual([
      { deviceId: '7F3A9C', source: 'ble-gateway:gw', at: 1, sealed: { data: Buffer.from('41a47266c95f730011223378237214', 'hex'), address: 'C4:64:9F:5E:94:54' } },
      false,
    ]);
  });

  it('names the gateway by its topic', () => {
    expect(gatewayName('home/TheengsGateway/BTtoMQTT/54945E9F64C4')).toBe('TheengsGateway');
    expect(gatewayName('home/OMG_ESP32_BLE/BTtoMQTT/587820')).toBe('OMG_ESP32_BLE');
    expect(gatewayName('ble/raw')).toBe('ble');
    expect(gatewayNameOfWill('home/TheengsGateway/LWT')).toBe('TheengsGateway');
    expect(gatewayNameOfWill('LWT')).toBe('LWT');
  });
});

describe('startBleGatewaySource against a real broker', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.stop());

  it('matches gateway reports against the profiles, counts every message and drops broken ones', async () => {
    const profiles = profilesSchema.parse([
      DEFAULT_PROFILE,
      { name: 'tag', match: { serviceUuid: 'fdcd' }, deviceId: { from: 'address' }, deviceTypeId: 5 },
    ]) as Profile[];
    const log = captureLog();
    const counters = createCounters();
    const sightings: Sighting[] = [];
    const connection = connectMqtt({ url: broker.url, prefix: 'gw-test', logger: log.logger, reconnectDelay: () => 50 });
    const source = startBleGatewaySource({ connection, filter: 'home/+/BTtoMQTT/+', matcher: new ProfileMatcher(profiles), counters, logger: log.logger, onSighting: (s) => sightings.push(s), now: () => 1_000 });
    try {
      await waitFor(() => connection.state() === 'connected', { what: 'the connection' });
      await untilSubscribed(broker.url, 'home/probe/BTtoMQTT/0', JSON.stringify(THEENGS_PHONE), counters);
      const before = { ...counters };
      await publishOnce(broker.url, 'home/TheengsGateway/BTtoMQTT/C4649F5E9454', [json({ id: 'C4:64:9F:5E:94:54', name: 'PANIC-7F3A9C', rssi: -61 }), json(THEENGS_PHONE), '{broken']);
      await publishOnce(broker.url, 'home/OMG_lobby/BTtoMQTT/AABBCC001122', [json(OMG_BEACON), json({ id: 'AA:BB:CC:00:11:22', servicedatauuid: '0xfdcd', servicedata: '01', rssi: -90 })]);
      await publishOnce(broker.url, 'home/TheengsGateway/LWT', ['offline']);
      await waitFor(() => counters.announcements - before.announcements === 5, { what: 'five gateway messages' });

      expect(sightings).toEqual([
        { deviceId: '7F3A9C', source: 'ble-gateway:TheengsGateway', rssi: -61, at: 1_000, profile: 'panic-button' },
        { deviceId: 'AA:BB:CC:00:11:22', source: 'ble-gateway:OMG_lobby', rssi: -90, deviceTypeId: 5, at: 1_000, profile: expect.any(String) },
      ]);
      expect(counters.dropped - before.dropped).toBe(1);
      expect(log.lines.find((line) => line.msg === 'invalid BLE gateway message dropped' && line.reason === 'not JSON')).toMatchObject({
        topic: 'home/TheengsGateway/BTtoMQTT/C4649F5E9454',
      });
    } finally {
      source.stop();
      await connection.close();
    }
  });
});

describe('gateways as sources, bounded', () => {
  it('keeps the first MAX_GATEWAY_SOURCES names as sources; 10,000 more names are one source', () => {
    let handler: ((topic: string, payload: Buffer, retained?: boolean) => void) | undefined;
    const connection = {
      state: () => 'connected' as const,
      subscribe: (_filter: string, onMessage: typeof handler) => void (handler = onMessage),
      publishRetained: () => undefined,
      onStateChange: () => undefined,
      close: async () => undefined,
    };
    const sightings: Sighting[] = [];
    const source = startBleGatewaySource({
      connection,
      filter: 'home/+/BTtoMQTT/+',
      matcher: new ProfileMatcher([DEFAULT_PROFILE]),
      counters: createCounters(),
      logger: captureLog().logger,
      onSighting: (s) => sightings.push(s),
      now: () => 1,
    });
    const report = json({ id: 'C4:64:9F:5E:94:54', name: 'PANIC-7F3A9C', rssi: -61 });
    handler!('home/TheengsGateway/BTtoMQTT/C4649F5E9454', report);
    for (let i = 0; i < 10_000; i++) handler!(`home/made-up-${i}/BTtoMQTT/C4649F5E9454`, report);
    handler!('home/TheengsGateway/BTtoMQTT/C4649F5E9454', report);
    source.stop();

    const words = new Set(sightings.map((s) => s.source));
    expect(sightings).toHaveLength(10_002);
    expect(words.size).toBe(MAX_GATEWAY_SOURCES + 1);
    expect(words.has(OTHER_GATEWAYS)).toBe(true);
    // The gateway heard first keeps its name, before and after the flood.
    expect(sightings[0]!.source).toBe('ble-gateway:TheengsGateway');
    expect(sightings.at(-1)!.source).toBe('ble-gateway:TheengsGateway');
  });
});
