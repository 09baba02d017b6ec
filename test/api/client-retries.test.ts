import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiTransientError, createApiClient } from '../../src/api/index.js';
import { Secret } from '../../src/config/secret.js';
import { failure, rig, TOKEN } from './api-harness.js';

// Transient faults are retried and then succeed; once retries are spent they are 'transient'.

const link = { customerId: 42, deviceId: 'BTN-1' };

describe('retried, then succeeding', () => {
  it.each([500, 502, 503, 504])('%i once on the subscription list', async (status) => {
    const { client, simulator, events } = await rig();
    simulator.setFaults({ queue: [{ type: 'status', status, route: 'subscriptions' }] });
    expect(await client.listSubscriptions(42)).toHaveLength(1);
    expect(simulator.stats().subscriptionGets).toBe(2);
    expect(events.map((event) => [event.attempt, event.status, event.error])).toEqual([
      [1, status, `the API answered ${status}`],
      [2, 200, undefined],
    ]);
  });

  it('503 once on the link: the POST is retried and links once', async () => {
    const { client, simulator } = await rig();
    simulator.setFaults({ queue: [{ type: 'status', status: 503, route: 'link' }] });
    expect(await client.linkDevice(link)).toMatchObject(link);
    expect(simulator.stats()).toMatchObject({ postsByDevice: { 'BTN-1': 2 }, links: 1 });
  });

  it('backs off with the real clock too', async () => {
    const { client, simulator } = await rig({ sleep: undefined, retry: { baseDelayMs: 2, maxDelayMs: 5 } });
    simulator.setFaults({ queue: [{ type: 'status', status: 500, count: 2 }] });
    expect(await client.listSubscriptions(42)).toHaveLength(1);
    expect(simulator.stats().subscriptionGets).toBe(3);
  });

  it('429 with Retry-After waits as long as asked', async () => {
    const { client, simulator, delays } = await rig();
    simulator.setFaults({ queue: [{ type: 'status', status: 429, retryAfter: 2 }] });
    expect(await client.listSubscriptions(42)).toHaveLength(1);
    expect(delays).toEqual([2_000]);
  });

  it('503 with a Retry-After date waits until then', async () => {
    const now = Date.parse('2025-03-01T12:00:00Z');
    const { client, simulator, delays } = await rig({ now: () => now });
    simulator.setFaults({ queue: [{ type: 'status', status: 503, retryAfter: new Date(now + 7_000).toUTCString() }] });
    expect(await client.linkDevice(link)).toMatchObject(link);
    expect(delays).toEqual([7_000]);
  });

  it('a Retry-After beyond maxRetryAfterMs is cut to it', async () => {
    const { client, simulator, delays } = await rig({ retry: { maxRetryAfterMs: 30 } });
    simulator.setFaults({ queue: [{ type: 'status', status: 429, retryAfter: 3_600 }] });
    expect(await client.listSubscriptions(42)).toHaveLength(1);
    expect(delays).toEqual([30]);
  });

  it('a real short Retry-After is slept through', async () => {
    const { client, simulator } = await rig({ sleep: undefined });
    simulator.setFaults({ queue: [{ type: 'status', status: 429, retryAfter: '0.01' }] });
    expect(await client.listSubscriptions(42)).toHaveLength(1);
  });

  it('a dropped connection', async () => {
    const { client, simulator, events } = await rig();
    simulator.setFaults({ queue: [{ type: 'drop', route: 'link' }] });
    expect(await client.linkDevice(link)).toMatchObject(link);
    expect(simulator.stats()).toMatchObject({ postsByDevice: { 'BTN-1': 2 }, links: 1 });
    expect(events[0]?.error).toBe('the connection was dropped before the reply was complete');
  });

  it('a time-out: no answer within timeoutMs', async () => {
    const { client, simulator, events } = await rig({ timeoutMs: 100 });
    simulator.setFaults({ queue: [{ type: 'delay', ms: 2_000 }] });
    expect(await client.listSubscriptions(42)).toHaveLength(1);
    expect(events[0]?.error).toBe('the API did not answer within 100 ms');
  });

  it('a body that stalls halfway', async () => {
    const { client, simulator, events } = await rig({ timeoutMs: 150 });
    simulator.setFaults({ queue: [{ type: 'slow-body', route: 'link' }] });
    expect(await client.linkDevice(link)).toMatchObject(link);
    expect(events[0]).toMatchObject({ error: 'the API did not answer within 150 ms', attempt: 1 });
    expect(events[0]?.status).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ status: 201 });
  });

  it('a slow body that completes in time is a normal answer', async () => {
    const { client, simulator } = await rig();
    simulator.setFaults({ queue: [{ type: 'slow-body', stallMs: 10 }] });
    expect(await client.listSubscriptions(42)).toHaveLength(1);
    expect(simulator.stats().subscriptionGets).toBe(1);
  });
});

describe('retries exhausted', () => {
  it('5xx every time: transient, naming the status and the attempts', async () => {
    const { client, simulator, delays } = await rig({ retry: { limit: 3, baseDelayMs: 1, maxDelayMs: 4 } });
    simulator.setFaults({ queue: [{ type: 'status', status: 503, count: 10 }] });
    const error = await failure(client.listSubscriptions(42));
    expect(error).toBeInstanceOf(ApiTransientError);
    expect(error.kind).toBe('transient');
    expect(error.status).toBe(503);
    expect(error.message).toBe('the API answered 503 (4 attempts)');
    expect(simulator.stats().subscriptionGets).toBe(4);
    expect(delays).toHaveLength(3);
  });

  it('the default policy makes 5 attempts', async () => {
    const { client, simulator } = await rig({ retry: undefined, random: () => 0 });
    simulator.setFaults({ queue: [{ type: 'status', status: 500, count: 10 }] });
    expect((await failure(client.linkDevice(link))).message).toBe('the API answered 500 (5 attempts)');
    expect(simulator.stats().postsByDevice).toEqual({ 'BTN-1': 5 });
    expect(simulator.stats().links).toBe(0);
  });

  it('latency above timeoutMs on every request: transient time-out', async () => {
    const { client, simulator } = await rig({ timeoutMs: 50, retry: { limit: 1 } });
    simulator.setFaults({ latencyMs: 1_000 });
    const error = await failure(client.listSubscriptions(42));
    expect(error.kind).toBe('transient');
    expect(error.message).toBe('the API did not answer within 50 ms (2 attempts)');
  });

  it('connection refused', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const client = createApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: () => new Secret(TOKEN),
      timeoutMs: 1_000,
      maxInFlight: 1,
      retry: { limit: 2 },
      sleep: async () => {},
    });
    try {
      const error = await failure(client.listSubscriptions(42));
      expect(error.kind).toBe('transient');
      expect(error.message).toBe('connection refused (3 attempts)');
    } finally {
      client.close();
    }
  });

  it('limit 0: one attempt only', async () => {
    const { client, simulator } = await rig({ retry: { limit: 0 } });
    simulator.setFaults({ queue: [{ type: 'drop' }] });
    expect((await failure(client.listSubscriptions(42))).message).toBe(
      'the connection was dropped before the reply was complete (1 attempt)',
    );
  });
});
