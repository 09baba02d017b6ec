import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCounters } from '../../src/status/counters.js';
import { startAnnounceSource, type AnnounceSource } from '../../src/discovery/announce.js';
import type { Sighting } from '../../src/sighting.js';
import { connectMqtt, type MqttConnection } from '../../src/mqtt/connection.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { captureLog, type CapturedLog } from '../support/log-capture.js';
import { publishOnce } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

const NOW = Date.parse('2025-03-01T12:00:00Z');

describe('startAnnounceSource against a real broker', () => {
  let broker: TestBroker;
  let connection: MqttConnection;
  let source: AnnounceSource | undefined;
  let log: CapturedLog;
  let prefix: string;
  let runs = 0;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker.stop();
  });
  afterEach(async () => {
    source?.stop();
    await connection.close();
  });

  async function start(onSighting: (sighting: Sighting) => void) {
    prefix = `hub-announce-${++runs}`;
    log = captureLog();
    const counters = createCounters();
    connection = connectMqtt({ url: broker.url, prefix, logger: log.logger, reconnectDelay: () => 50 });
    source = startAnnounceSource({ connection, prefix, counters, logger: log.logger, onSighting, now: () => NOW });
    await waitFor(() => connection.state() === 'connected', { what: 'the connection' });
    return counters;
  }

  it('turns valid announcements into sightings and counts every message', async () => {
    const sightings: Sighting[] = [];
    const counters = await start((sighting) => sightings.push(sighting));
    await publishOnce(broker.url, `${prefix}/announce`, ['{"deviceId":"7F3A9C","rssi":-61}', '{"deviceId":"BTN-2","deviceTypeId":4,"extra":true}']);
    await waitFor(() => sightings.length === 2, { what: 'two sightings' });
    expect(sightings).toEqual([
      { deviceId: '7F3A9C', source: 'mqtt', rssi: -61, at: NOW },
      { deviceId: 'BTN-2', source: 'mqtt', deviceTypeId: 4, at: NOW },
    ]);
    expect(counters).toMatchObject({ announcements: 2, dropped: 0 });
  });

  it('counts, drops and logs invalid announcements at a bounded rate, and goes on', async () => {
    const sightings: Sighting[] = [];
    const counters = await start((sighting) => sightings.push(sighting));
    const invalid = ['not json', '[]', 'null', '{"deviceId":"a/b"}', '{"deviceId":"A","rssi":1000}', Buffer.alloc(5000, 0x20), '{"deviceId":""}', '{}'];
    await publishOnce(broker.url, `${prefix}/announce`, [...invalid, '{"deviceId":"OK-1"}']);
    await waitFor(() => counters.announcements === invalid.length + 1, { what: 'every announcement' });
    expect(counters.dropped).toBe(invalid.length);
    expect(sightings.map((sighting) => sighting.deviceId)).toEqual(['OK-1']);

    const warnings = log.lines.filter((line) => line.msg === 'invalid announcement dropped');
    expect(warnings).toHaveLength(5);
    expect(warnings[0]).toMatchObject({ reason: 'not JSON', topic: `${prefix}/announce` });
    source!.stop();
    expect(log.lines.at(-1)).toMatchObject({ msg: `${invalid.length - 5} more invalid announcements dropped` });
    expect(connection.state()).toBe('connected');
  });

  it('survives an engine that throws: counted, logged, and later announcements still arrive', async () => {
    const sightings: Sighting[] = [];
    const counters = await start((sighting) => {
      if (sighting.deviceId === 'BOOM') throw new Error('engine bug');
      sightings.push(sighting);
    });
    await publishOnce(broker.url, `${prefix}/announce`, ['{"deviceId":"BOOM"}', '{"deviceId":"AFTER"}']);
    await waitFor(() => sightings.length === 1, { what: 'the sighting after the failure' });
    expect(sightings[0]!.deviceId).toBe('AFTER');
    expect(counters).toMatchObject({ announcements: 2, dropped: 1 });
    expect(log.lines.find((line) => line.msg === 'an announcement could not be handled')).toMatchObject({ deviceId: 'BOOM', error: 'engine bug' });
    expect(connection.state()).toBe('connected');
  });
});
