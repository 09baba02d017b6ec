import { afterEach, describe, expect, it } from 'vitest';
import { MQTT_PAYLOAD_LIMIT_BYTES } from '../../src/discovery/payload-limit.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';

// An announcement past the largest payload any reader takes, sent to a running daemon.
// Over MQTT 3.1.1 (the embedded broker) it arrives, and is counted as invalid and dropped unread;
// over MQTT 5 (mosquitto) the broker, told the limit, never sends it.

let hub: DaemonHarness | undefined;
let broker: TestBroker | undefined;
afterEach(async () => {
  await hub?.close();
  await broker?.stop();
  hub = undefined;
  broker = undefined;
});

/** Past the payload limit and past the packet limit told to an MQTT 5 broker (the limit and room for the topic). */
const OVERSIZED = Buffer.alloc(200_000, 0x7b);

describe('an oversized MQTT message to the daemon', () => {
  it('over MQTT 3.1.1 is counted, logged at a bounded rate and dropped before it is read', { timeout: 60_000 }, async () => {
    broker = await startBroker({ kind: 'embedded' });
    hub = await startHarness({ broker, logLevel: 'info' });
    const before = (await hub.status()).counters;
    await hub.publishRaw(OVERSIZED);
    await hub.announceSeen('AFTER-OVERSIZED');
    const after = (await hub.status()).counters;
    expect(after.announcements - before.announcements).toBe(2);
    expect(after.dropped - before.dropped).toBe(1);
    const line = hub.output().split('\n').find((text) => text.includes('oversized MQTT message dropped unread'));
    expect(JSON.parse(line!)).toMatchObject({ bytes: OVERSIZED.length, most: MQTT_PAYLOAD_LIMIT_BYTES });
  });

  it('over MQTT 5 is held back by the broker: the daemon never holds it', { timeout: 60_000 }, async (context) => {
    broker = await startBroker();
    if (broker.kind !== 'mosquitto') context.skip();
    hub = await startHarness({ broker, logLevel: 'info' });
    const before = (await hub.status()).counters;
    await hub.publishRaw(OVERSIZED);
    await hub.announceSeen('AFTER-OVERSIZED');
    const after = (await hub.status()).counters;
    expect(after.announcements - before.announcements).toBe(1);
    expect(after.dropped - before.dropped).toBe(0);
  });
});
