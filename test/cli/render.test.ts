import { describe, expect, it } from 'vitest';
import { byStrength } from '../../src/cli/commands/scan.js';
import { ago, duration, facts, rssiText, table } from '../../src/cli/render.js';

describe('render', () => {
  it('table: columns padded to the widest cell, no trailing spaces', () => {
    expect(table(['ID', 'STATE', 'NOTE'], [['7F3A9C', 'linked', ''], ['B2', 'failed', 'timeout']])).toBe(
      'ID      STATE   NOTE\n7F3A9C  linked\nB2      failed  timeout\n',
    );
  });

  it('facts: labels aligned', () => {
    expect(facts([['MQTT', 'connected'], ['API token', 'accepted']])).toBe('MQTT       connected\nAPI token  accepted\n');
  });

  it('durations and ages read at a glance', () => {
    expect(duration(42_900)).toBe('42 s');
    expect(duration(252_000)).toBe('4 min 12 s');
    expect(duration(7_500_000)).toBe('2 h 5 min');
    expect(duration(273_600_000)).toBe('3 d 4 h');
    expect(ago('2025-03-01T10:00:00.000Z', Date.parse('2025-03-01T10:00:12.000Z'))).toBe('12 s ago');
    expect(ago('not a time', 0)).toBe('not a time');
    expect(rssiText(-57.6)).toBe('-58 dBm');
    expect(rssiText(undefined)).toBe('-');
  });

  it('scan order: strongest first, unknown RSSI last, ties by id', () => {
    const at = '2025-03-01T10:00:00.000Z';
    const order = byStrength([
      { deviceId: 'M2', source: 'mqtt', lastSeen: at },
      { deviceId: 'FAR', source: 'ble', rssi: -90, lastSeen: at },
      { deviceId: 'M1', source: 'mqtt', lastSeen: at },
      { deviceId: 'NEAR', source: 'ble', rssi: -40, lastSeen: at },
    ]).map((entry) => entry.deviceId);
    expect(order).toEqual(['NEAR', 'FAR', 'M1', 'M2']);
  });
});
