import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { observe, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// The daemon on the broker: retained state out, announcements in, and
// what a broker restart or a hostile publisher does to it.

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

describe('retained state on the broker', () => {
  let hub: DaemonHarness;
  let watcher: MqttObserver;
  beforeAll(async () => {
    hub = await startHarness();
    watcher = await observe(hub.broker.url, `${hub.prefix}/#`);
  });
  afterAll(async () => {
    await watcher?.close();
    await hub?.close();
  });

  const last = (topic: string): string | undefined => watcher.payloads(topic).at(-1);

  it('publishes online, the entitlement and each linked device, then offline after SIGTERM', async () => {
    expect(await waitFor(() => last(`${hub.prefix}/status`), { what: 'the status topic' })).toBe('online');

    const entitlement = JSON.parse(await waitFor(() => last(`${hub.prefix}/entitlement`), { what: 'the entitlement topic' })) as Record<string, unknown>;
    expect(entitlement).toEqual({ customerId: 42, entitled: true, checkedAt: expect.stringMatching(ISO) });

    await hub.announceSeen('RET-A');
    const pair = await hub.cli(['pair', 'RET-A', '--json']);
    expect(pair.code, pair.stderr).toBe(0);
    const { linkId } = JSON.parse(pair.stdout) as { linkId: number };
    const device = await waitFor(
      () => watcher.payloads(`${hub.prefix}/devices/RET-A`).map((text) => JSON.parse(text) as Record<string, unknown>).find((payload) => payload.state === 'linked'),
      { what: 'the linked state of RET-A' },
    );
    expect(device).toEqual({ state: 'linked', customerId: 42, linkId, at: expect.stringMatching(ISO) });

    // A client that comes later gets the same state from the broker's retained copy.
    const late = await observe(hub.broker.url, `${hub.prefix}/devices/RET-A`);
    try {
      const retained = await waitFor(() => late.messages.find((message) => message.retain), { what: 'the retained device state' });
      expect(JSON.parse(retained.payload)).toEqual(device);
    } finally {
      await late.close();
    }

    expect(await hub.stop()).toEqual({ code: 0, signal: null });
    expect(await waitFor(() => last(`${hub.prefix}/status`) === 'offline', { what: 'offline on the status topic' })).toBe(true);
  });
});

describe('announcements and the broker connection', () => {
  let hub: DaemonHarness;
  beforeAll(async () => {
    hub = await startHarness();
  });
  afterAll(() => hub?.close());

  it('counts and drops invalid announcements and keeps answering', async () => {
    const before = (await hub.status()).counters;
    const garbage = [
      'not json at all',
      '[1,2,3]',
      'null',
      '{}',
      '{"deviceId":""}',
      '{"deviceId":"has space"}',
      '{"deviceId":"a/b"}',
      `{"deviceId":"${'x'.repeat(65)}"}`,
      '{"deviceId":42}',
      '{"deviceId":"OK-ID","rssi":"loud"}',
      '{"deviceId":"OK-ID","deviceTypeId":1.5}',
      Buffer.from([0xff, 0xfe, 0x00, 0x01]),
      'x'.repeat(10_000),
      '{"__proto__":{"polluted":true},"deviceId":"x y"}',
    ];
    for (const payload of garbage) await hub.publishRaw(payload);
    const after = await waitFor(
      async () => {
        const counters = (await hub.status()).counters;
        return counters.dropped >= before.dropped + garbage.length ? counters : undefined;
      },
      { what: 'every invalid announcement to be counted' },
    );
    expect(after.dropped - before.dropped).toBe(garbage.length);
    expect(after.announcements - before.announcements).toBe(garbage.length);
    expect(await hub.devices()).toEqual([]);

    // Still alive and still pairing.
    await hub.announceSeen('AFTER-GARBAGE');
    const pair = await hub.cli(['pair', 'AFTER-GARBAGE']);
    expect(pair.code, pair.stderr).toBe(0);
  });

  it('reconnects and subscribes again after a broker restart; a pair afterwards works', async () => {
    await hub.announceSeen('BEFORE-RESTART');
    expect((await hub.cli(['pair', 'BEFORE-RESTART'])).code).toBe(0);
    // The test broker keeps nothing across a restart: retained states come back only if the
    // daemon publishes them again when it reconnects.
    await hub.broker.restart();
    const before = (await hub.status()).counters.dropped;
    // Announcements reach the daemon only once it is connected and subscribed again.
    await waitFor(
      async () => {
        await hub.publishRaw('{"probe":"after restart"}');
        return (await hub.status()).counters.dropped > before;
      },
      { timeoutMs: 15_000, intervalMs: 200, what: 'the daemon to hear announcements after the broker restart' },
    );
    expect((await hub.status()).mqtt).toBe('connected');
    const late = await observe(hub.broker.url, `${hub.prefix}/#`);
    try {
      const retained = await waitFor(
        () => late.messages.find((message) => message.retain && message.topic === `${hub.prefix}/devices/BEFORE-RESTART`),
        { what: 'the retained state of a device linked before the restart' },
      );
      expect(JSON.parse(retained.payload)).toMatchObject({ state: 'linked' });
      const entitlement = await waitFor(() => late.messages.find((message) => message.retain && message.topic === `${hub.prefix}/entitlement`), {
        what: 'the retained entitlement after the restart',
      });
      expect(JSON.parse(entitlement.payload)).toMatchObject({ customerId: 42, entitled: true });
    } finally {
      await late.close();
    }

    await hub.announceSeen('AFTER-RESTART');
    const pair = await hub.cli(['pair', 'AFTER-RESTART']);
    expect(pair.code, pair.stderr).toBe(0);
    expect((await hub.devices()).find((device) => device.deviceId === 'AFTER-RESTART')?.state).toBe('linked');
  });
});
