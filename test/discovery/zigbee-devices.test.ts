import { describe, expect, it } from 'vitest';
import type { Sighting } from '../../src/sighting.js';
import {
  addZigbeeBattery,
  isDeviceTopicName,
  MAX_DEVICE_LIST_BYTES,
  MAX_DEVICE_LIST_ENTRIES,
  parseDeviceList,
  readBridgeState,
  readDeviceReport,
} from '../../src/discovery/zigbee-devices.js';

// Zigbee2MQTT's device list, device reports and bridge state, in the shapes its documentation and
// logs show (fixtures/mqtt-payloads.md), varied.

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const COORDINATOR = { ieee_address: '0x00124b0018e2a4d1', type: 'Coordinator', network_address: 0, supported: false, friendly_name: 'Coordinator', definition: null, interview_completed: true };
const BUTTON = {
  ieee_address: '0x00124B00088CCD58',
  type: 'EndDevice',
  network_address: 29159,
  supported: true,
  friendly_name: 'hall/panic button',
  definition: { model: 'SOS-1', vendor: 'Acme', description: 'SOS button', exposes: [{ type: 'numeric', name: 'battery', property: 'battery' }], options: [] },
  power_source: 'Battery',
  interview_completed: true,
};
const PLUG = { ieee_address: '0xa4c1380000000001', type: 'Router', friendly_name: 'kitchen plug', definition: { model: 'TS011F', vendor: 'TuYa' } };

describe('parseDeviceList', () => {
  it('keeps the devices with a definition, IEEE addresses in lower case', () => {
    expect(parseDeviceList(json([COORDINATOR, BUTTON, PLUG]))).toEqual([
      { friendlyName: 'hall/panic button', ieeeAddress: '0x00124b00088ccd58', definition: { model: 'SOS-1', vendor: 'Acme' } },
      { friendlyName: 'kitchen plug', ieeeAddress: '0xa4c1380000000001', definition: { model: 'TS011F', vendor: 'TuYa' } },
    ]);
  });

  it('passes over entries of other shapes', () => {
    const odd = [null, 5, 'x', [], { ieee_address: 'nope', friendly_name: 'a', definition: {} }, { ieee_address: '0x00124b00088ccd58', definition: {} }, { ...BUTTON, friendly_name: '' }, { ...BUTTON, definition: 'SOS-1' }, { ...BUTTON, definition: { model: 5 } }];
    expect(parseDeviceList(json(odd))).toEqual([{ friendlyName: 'hall/panic button', ieeeAddress: '0x00124b00088ccd58', definition: {} }]);
  });

  it.each<[string, Buffer, string]>([
    ['not JSON', Buffer.from('[{'), 'not JSON'],
    ['an object', json({ devices: [] }), 'the device list must be a JSON array'],
    ['a list past the size bound', Buffer.alloc(MAX_DEVICE_LIST_BYTES + 1, 0x20), `a device list larger than ${MAX_DEVICE_LIST_BYTES} bytes (${MAX_DEVICE_LIST_BYTES + 1})`],
  ])('refuses %s', (_name, payload, reason) => {
    expect(parseDeviceList(payload)).toEqual({ invalid: reason });
  });

  it('looks at no more entries than its bound', () => {
    const many = Array.from({ length: MAX_DEVICE_LIST_ENTRIES + 10 }, (_, i) => ({ ...PLUG, ieee_address: `0x${i.toString(16).padStart(16, '0')}`, friendly_name: `d${i}` }));
    const devices = parseDeviceList(json(many));
    expect(Array.isArray(devices) && devices.length).toBe(MAX_DEVICE_LIST_ENTRIES);
  });
});

describe('isDeviceTopicName', () => {
  it.each<[string, boolean]>([
    ['0x00124b00088ccd58', true],
    ['hall/panic button', true],
    ['Küche/Notruf', true],
    ['bridge', false],
    ['bridge/state', false],
    ['a+b', false],
    ['a/#', false],
    ['a\u0000b', false],
    ['x'.repeat(1025), false],
  ])('%s: %s', (name, expected) => {
    expect(isDeviceTopicName(name)).toBe(expected);
  });
});

describe('device reports', () => {
  const sighting = (): Sighting => ({ deviceId: '0x00124b00088ccd58', source: 'zigbee2mqtt', at: 1 });
  const apply = (payload: object): [Sighting, boolean] => {
    const report = readDeviceReport(json(payload));
    if ('invalid' in report) throw new Error(report.invalid);
    const s = sighting();
    return [s, addZigbeeBattery(s, report)];
  };

  it('takes battery (percent) and battery_low', () => {
    expect(apply({ action: 'single', battery: 100, linkquality: 120 })).toEqual([{ ...sighting(), battery: 100 }, false]);
    expect(apply({ battery: 15, battery_low: true, voltage: 2700 })).toEqual([{ ...sighting(), battery: 15, batteryLow: true }, false]);
    // A fraction is rounded: the store keeps whole percents, and a save it refused would lose every last-heard time.
    expect(apply({ battery: 76.5 })).toEqual([{ ...sighting(), battery: 77 }, false]);
    expect(apply({ linkquality: 87 })).toEqual([sighting(), false]);
    expect(apply({ battery: null, battery_low: null })).toEqual([sighting(), false]);
  });

  it('drops a battery out of range or of the wrong kind, keeping the sighting, and says so', () => {
    for (const payload of [{ battery: 101 }, { battery: -5 }, { battery: '80' }, { battery_low: 'yes' }, { battery_low: 1 }]) {
      const [s, dropped] = apply(payload);
      expect(dropped).toBe(true);
      expect(s).toEqual(sighting());
    }
    expect(apply({ battery: 300, battery_low: false })).toEqual([{ ...sighting(), batteryLow: false }, true]);
  });

  it.each<[string, Buffer, string]>([
    ['not JSON', Buffer.from('ON'), 'not JSON'],
    ['an array', json([1]), 'not a JSON object'],
    ['a huge report', Buffer.alloc(70_000, 0x20), 'larger than 65536 bytes (70000)'],
  ])('refuses %s', (_name, payload, reason) => {
    expect(readDeviceReport(payload)).toEqual({ invalid: reason });
  });
});

describe('readBridgeState', () => {
  it.each<[string, boolean]>([
    ['{"state":"online"}', true],
    ['{"state":"offline"}', false],
    ['online', true],
    ['offline', false],
    [' Online\n', true],
    ['{"state":"OFFLINE"}', false],
  ])('%s', (payload, up) => {
    expect(readBridgeState(Buffer.from(payload))).toBe(up);
  });

  it.each(['{"state":"starting"}', '{"state":1}', '{}', '{"state":', 'running', '[]'])('refuses %s', (payload) => {
    expect(readBridgeState(Buffer.from(payload))).toHaveProperty('invalid');
  });
});
