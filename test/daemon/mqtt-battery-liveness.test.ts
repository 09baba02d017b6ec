import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PanicApi } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/index.js';
import { createCounters } from '../../src/status/counters.js';
import { startMqttSide, type MqttSide } from '../../src/daemon/mqtt-side.js';
import type { Sighting } from '../../src/sighting.js';
import { silentLogger } from '../../src/log/logger.js';
import type { DeviceStore } from '../../src/pairing/link-job.js';
import { PairingEngine } from '../../src/pairing/engine.js';
import type { SourceLiveness } from '../../src/supervision/types.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { publishOnce } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// What supervision needs from the MQTT side, through a real mosquitto: each source's battery
// reaching the sighting (announcements, a BLE gateway's BTHome data and `batt`, a Zigbee button's
// own reports), and the sources' liveness (gateways' last wills, Zigbee2MQTT's bridge state)
// reaching MqttSide's listeners.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-battery-mqtt-'));
const IEEE = '0x00124b00088ccd58';
const BUTTON_NAME = 'hall/panic button';
const GATEWAY = 'home/TheengsGateway/BTtoMQTT/C4649F5E9454';
const json = (value: unknown): string => JSON.stringify(value);
const deviceList = json([
  { ieee_address: '0x00124b0018e2a4d1', type: 'Coordinator', friendly_name: 'Coordinator', definition: null },
  { ieee_address: IEEE.toUpperCase().replace('0X', '0x'), type: 'EndDevice', friendly_name: BUTTON_NAME, definition: { model: 'SOS-1', vendor: 'Acme', exposes: [] }, interview_completed: true },
  { ieee_address: '0xa4c1380000000001', type: 'Router', friendly_name: 'kitchen plug', definition: { model: 'TS011F', vendor: 'TuYa' } },
]);

describe('battery and source liveness over a real broker', () => {
  let broker: TestBroker;
  let side: MqttSide;
  const counters = createCounters();
  const sightings: Sighting[] = [];
  const liveness: SourceLiveness[] = [];

  beforeAll(async () => {
    broker = await startBroker();
    // What the broker holds before the hub starts: the wills and bridge state, the device list,
    // and a button's old report, retained (Zigbee2MQTT's `retain` device option).
    await publishOnce(broker.url, 'home/TheengsGateway/LWT', ['online'], { retain: true });
    await publishOnce(broker.url, 'z2m/bridge/state', ['{"state":"online"}'], { retain: true });
    await publishOnce(broker.url, 'z2m/bridge/devices', [deviceList], { retain: true });
    await publishOnce(broker.url, `z2m/${BUTTON_NAME}`, [json({ battery: 3, linkquality: 80 })], { retain: true });

    const configFile = path.join(dir, 'config.json');
    const profiles = [
      { name: 'panic-button', match: { namePrefix: 'PANIC-' }, deviceId: { from: 'nameSuffix' } },
      { name: 'zigbee-sos', match: { zigbeeModel: 'SOS-1' }, deviceId: { from: 'ieeeAddress' }, deviceTypeId: 3 },
    ];
    writeFileSync(configFile, json({ profiles }), { mode: 0o644 });
    const config = loadConfig({
      env: {
        PANIC_PAIR_CONFIG: configFile,
        PANIC_PAIR_MQTT_URL: broker.address,
        PANIC_PAIR_MQTT_PREFIX: 'pp',
        PANIC_PAIR_MQTT_BLE_GATEWAYS: 'home/+/BTtoMQTT/+',
        PANIC_PAIR_ZIGBEE2MQTT_PREFIX: 'z2m',
        PANIC_PAIR_STATE_DIR: dir,
      },
      defaultConfigFile: path.join(dir, 'absent.json'),
    });
    const logger = silentLogger();
    // Nothing is linked here: the engine only hears sightings.
    const api = { listSubscriptions: async () => [], linkDevice: async () => Promise.reject(new Error('not in this test')) } as unknown as PanicApi;
    const store = { get: () => undefined, all: () => [], put: async () => undefined, remove: async () => false } as unknown as DeviceStore;
    const engine = new PairingEngine({ customerId: 42, api, store, hasToken: true, apiConcurrency: 1, entitlementTtlMs: 300_000, minRssi: -70, autoPair: false, counters, logger });
    const hear = engine.sighting.bind(engine);
    engine.sighting = (sighting: Sighting) => {
      sightings.push(sighting);
      hear(sighting);
    };
    side = startMqttSide({ config, engine, counters, logger });
    side.onSourceLiveness((news) => liveness.push(news));
  });
  afterAll(async () => {
    await side?.close();
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const heard = (deviceId: string): Sighting[] => sightings.filter((sighting) => sighting.deviceId === deviceId);

  it('learns the retained wills and bridge state at start; a source never heard from has no entry', async () => {
    await waitFor(() => side.sourceLiveness().length === 2, { what: 'the retained will and bridge state' });
    expect(side.sourceLiveness()).toEqual(
      expect.arrayContaining([
        { source: 'ble-gateway:TheengsGateway', up: true },
        { source: 'zigbee2mqtt', up: true },
      ]),
    );
    expect(liveness).toHaveLength(2);
  });

  it('takes an announcement\'s battery, and drops one whose battery breaks the schema', async () => {
    const before = counters.dropped;
    await publishOnce(broker.url, 'pp/announce', ['{"deviceId":"ANN001","rssi":-50,"battery":64}', '{"deviceId":"ANN002", "battery": 17}', '{"deviceId":"ANN003","battery":101}']);
    await waitFor(() => heard('ANN002').length > 0 && counters.dropped > before, { what: 'the announcements' });
    expect(heard('ANN001')).toEqual([expect.objectContaining({ source: 'mqtt', rssi: -50, battery: 64 })]);
    expect(heard('ANN002')).toEqual([expect.objectContaining({ battery: 17 })]);
    expect(heard('ANN003')).toEqual([]);
    expect(counters.dropped - before).toBe(1);
  });

  it('takes a gateway\'s BTHome battery and Theengs\' batt; an out-of-range one is counted, the sighting kept', async () => {
    const before = counters.batteryDropped;
    await publishOnce(broker.url, GATEWAY, [
      json({ id: 'C4:64:9F:5E:94:54', name: 'PANIC-GWBT01', rssi: -60, servicedatauuid: 'fcd2', servicedata: '440021013715' + '01' }),
      json({ id: 'C4:64:9F:5E:94:55', name: 'PANIC-GWBT02', rssi: -61, batt: 91 }),
      json({ id: 'C4:64:9F:5E:94:56', name: 'PANIC-GWBT03', rssi: -62, batt: 250 }),
    ]);
    await waitFor(() => heard('GWBT03').length > 0, { what: 'the gateway reports' });
    expect(heard('GWBT01')).toEqual([expect.objectContaining({ source: 'ble-gateway:TheengsGateway', battery: 55, batteryLow: true })]);
    expect(heard('GWBT02')).toEqual([expect.objectContaining({ battery: 91 })]);
    expect(heard('GWBT03')[0]).not.toHaveProperty('battery');
    expect(counters.batteryDropped - before).toBe(1);
  });

  it('hears a Zigbee button\'s own reports with their battery, never the retained one, nor other devices or sub-topics', async () => {
    // The button's topic is subscribed once the retained device list is read: press until heard.
    await waitFor(
      async () => {
        await publishOnce(broker.url, `z2m/${BUTTON_NAME}`, [json({ action: 'single', battery: 42, battery_low: false, linkquality: 120 })]);
        return heard(IEEE).length > 0;
      },
      { what: 'a report of the Zigbee button' },
    );
    await publishOnce(broker.url, `z2m/${BUTTON_NAME}/availability`, ['{"state":"online"}']);
    await publishOnce(broker.url, 'z2m/kitchen plug', [json({ state: 'ON', battery: 9 })]);
    await publishOnce(broker.url, `z2m/${BUTTON_NAME}`, [json({ battery: 41, battery_low: true })]);
    await waitFor(() => heard(IEEE).some((sighting) => sighting.battery === 41), { what: 'the second report' });
    for (const sighting of heard(IEEE)) {
      expect(sighting).toMatchObject({ source: 'zigbee2mqtt', deviceTypeId: 3 });
      // The retained report (3 %) said nothing of the button now.
      expect(sighting.battery).not.toBe(3);
    }
    expect(heard(IEEE).at(-1)).toMatchObject({ battery: 41, batteryLow: true });
    expect(sightings.some((sighting) => sighting.deviceId === '0xa4c1380000000001')).toBe(false);
  });

  it('keeps the interview sighting of a button that joined', async () => {
    const interview = json({ type: 'device_interview', data: { friendly_name: 'new', ieee_address: '0x00124b0000000077', status: 'successful', supported: true, definition: { model: 'SOS-1', vendor: 'Acme' } } });
    await publishOnce(broker.url, 'z2m/bridge/event', [interview]);
    await waitFor(() => heard('0x00124b0000000077').length > 0, { what: 'the interview sighting' });
    expect(heard('0x00124b0000000077')).toEqual([expect.objectContaining({ source: 'zigbee2mqtt', deviceTypeId: 3 })]);
  });

  it('tells the listeners when a gateway\'s last will or the bridge says offline, and drops a will it cannot read', async () => {
    const before = counters.dropped;
    await publishOnce(broker.url, 'home/TheengsGateway/LWT', [' Offline\n'], { retain: true });
    await publishOnce(broker.url, 'home/OMG_lobby/LWT', ['restarting', 'online']);
    await publishOnce(broker.url, 'z2m/bridge/state', ['offline'], { retain: true });
    await waitFor(() => liveness.length === 5, { what: 'three changes of liveness' });
    expect(liveness.slice(2)).toEqual(
      expect.arrayContaining([
        { source: 'ble-gateway:TheengsGateway', up: false },
        { source: 'ble-gateway:OMG_lobby', up: true },
        { source: 'zigbee2mqtt', up: false },
      ]),
    );
    expect(side.sourceLiveness()).toEqual(
      expect.arrayContaining([
        { source: 'ble-gateway:TheengsGateway', up: false },
        { source: 'ble-gateway:OMG_lobby', up: true },
        { source: 'zigbee2mqtt', up: false },
      ]),
    );
    expect(counters.dropped - before).toBe(1);
  });
});
