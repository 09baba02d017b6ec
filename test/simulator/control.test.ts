import { describe, expect, it } from 'vitest';
import { AUTH, call, post, simulator } from './sim-harness.js';

const LIST = '/panic-api/v2/customers/42/subscriptions';
const LINK = JSON.stringify({ customerId: 42, deviceId: 'A' });

function setFaults(base: string, faults: unknown) {
  return call(base, '/__simulator/faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
}

describe('/__simulator/ test controls', () => {
  it('need no token, and report stats', async () => {
    const sim = await simulator();
    await call(sim.url, LIST, { headers: AUTH });
    await post(sim.url, LINK);
    const stats = await call(sim.url, '/__simulator/stats');
    expect(stats.status).toBe(200);
    expect(stats.json).toEqual({
      requests: { link: 1, subscriptions: 1 },
      subscriptionGets: 1,
      postsByDevice: { A: 1 },
      customersByDevice: { A: [42] },
      links: 1,
      inFlight: 0,
      maxInFlight: 1,
    });
  });

  it('replace the customers while running (a subscription suspended), refusing an invalid seed', async () => {
    const sim = await simulator();
    const seed = { customers: [{ id: 42, subscriptions: [{ id: 1, subscriptionTypeId: 1, status: 'suspended', dependantCustomerIds: [] }] }] };
    const json = { method: 'POST', headers: { 'content-type': 'application/json' } };
    expect((await call(sim.url, '/__simulator/seed', { ...json, body: JSON.stringify(seed) })).status).toBe(200);
    expect((await call(sim.url, LIST, { headers: AUTH })).json).toMatchObject([{ id: 1, status: 'suspended' }]);
    const invalid = await call(sim.url, '/__simulator/seed', { ...json, body: JSON.stringify({ customers: [{ id: 'x' }] }) });
    expect(invalid.status).toBe(400);
    expect((await call(sim.url, LIST, { headers: AUTH })).json).toMatchObject([{ id: 1, status: 'suspended' }]);
  });

  it('set faults out of process, read them back, and apply them once per count', async () => {
    const sim = await simulator();
    const set = await setFaults(sim.url, { queue: [{ type: 'status', status: 503, route: 'subscriptions', count: 2 }] });
    expect(set.status).toBe(200);
    expect((await call(sim.url, '/__simulator/faults')).json).toMatchObject({
      latencyMs: 0,
      queue: [{ type: 'status', status: 503, route: 'subscriptions', count: 2 }],
      rejectDeviceIds: [],
    });
    expect((await post(sim.url, LINK)).status).toBe(201);
    expect((await call(sim.url, LIST, { headers: AUTH })).status).toBe(503);
    expect((await call(sim.url, LIST, { headers: AUTH })).status).toBe(503);
    expect((await call(sim.url, LIST, { headers: AUTH })).status).toBe(200);
  });

  it('refuses invalid faults with 400 and keeps the old ones', async () => {
    const sim = await simulator();
    await setFaults(sim.url, { rejectDeviceIds: ['A'] });
    const bad = await setFaults(sim.url, { queue: [{ type: 'explode' }] });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ message: expect.stringMatching(/invalid simulator faults/) });
    const notJson = await call(sim.url, '/__simulator/faults', { method: 'POST', body: 'x' });
    expect(notJson.status).toBe(400);
    expect((await post(sim.url, LINK)).json).toEqual({ message: 'device A cannot be linked' });
  });

  it('reset clears stats and faults; link ids keep increasing', async () => {
    const sim = await simulator();
    expect((await post(sim.url, LINK)).json).toMatchObject({ id: 1 });
    await setFaults(sim.url, { latencyMs: 5, queue: [{ type: 'drop', count: 5 }], rejectDeviceIds: ['B'] });
    const reset = await call(sim.url, '/__simulator/reset', { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(sim.stats()).toMatchObject({ requests: { link: 0, subscriptions: 0 }, links: 0, postsByDevice: {} });
    expect((await call(sim.url, '/__simulator/faults')).json).toEqual({ latencyMs: 0, queue: [], rejectDeviceIds: [] });
    expect((await post(sim.url, JSON.stringify({ customerId: 42, deviceId: 'B' }))).json).toMatchObject({ id: 2 });
  });

  it('404 for an unknown control, 405 for a wrong method', async () => {
    const sim = await simulator();
    expect((await call(sim.url, '/__simulator/nothing')).status).toBe(404);
    expect((await call(sim.url, '/__simulator/reset')).status).toBe(405);
    expect((await call(sim.url, '/__simulator/stats', { method: 'POST' })).status).toBe(405);
  });
});

describe('faults', () => {
  it('429 carries Retry-After and the message', async () => {
    const sim = await simulator();
    sim.setFaults({ queue: [{ type: 'status', status: 429, retryAfter: 3, message: 'slow down' }] });
    const answer = await call(sim.url, LIST, { headers: AUTH });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('3');
    expect(answer.json).toEqual({ message: 'slow down' });
  });

  it('a route-bound fault waits for its route; "any" takes the next request', async () => {
    const sim = await simulator();
    sim.setFaults({ queue: [{ type: 'status', status: 500, route: 'link' }, { type: 'status', status: 502 }] });
    expect((await call(sim.url, LIST, { headers: AUTH })).status).toBe(502);
    expect((await call(sim.url, LIST, { headers: AUTH })).status).toBe(200);
    expect((await post(sim.url, LINK)).status).toBe(500);
    expect((await post(sim.url, LINK)).status).toBe(201);
  });

  it('drop destroys the connection without an answer, and links nothing', async () => {
    const sim = await simulator();
    sim.setFaults({ queue: [{ type: 'drop' }] });
    await expect(post(sim.url, LINK)).rejects.toThrow();
    expect(sim.stats()).toMatchObject({ postsByDevice: { A: 1 }, links: 0 });
  });

  it('not-json answers 200 with a body that does not parse', async () => {
    const sim = await simulator();
    sim.setFaults({ queue: [{ type: 'not-json' }] });
    const answer = await call(sim.url, LIST, { headers: AUTH });
    expect(answer.status).toBe(200);
    expect(answer.json).toBeUndefined();
  });

  it('other-device and other-customer link but name someone else', async () => {
    const sim = await simulator();
    sim.setFaults({ queue: [{ type: 'other-device', deviceId: 'Z' }, { type: 'other-customer' }] });
    expect((await post(sim.url, LINK)).json).toMatchObject({ customerId: 42, deviceId: 'Z' });
    expect((await post(sim.url, LINK)).json).toMatchObject({ customerId: 43, deviceId: 'A' });
    expect(sim.stats().links).toBe(2);
  });

  it('slow-body sends the headers, then the body after the stall', async () => {
    const sim = await simulator();
    sim.setFaults({ queue: [{ type: 'slow-body', stallMs: 20 }] });
    const answer = await call(sim.url, LIST, { headers: AUTH });
    expect(answer.status).toBe(200);
    expect(answer.json).toHaveLength(1);
  });

  it('latency and delay still answer normally', async () => {
    const sim = await simulator();
    sim.setFaults({ latencyMs: 5, queue: [{ type: 'delay', ms: 5 }] });
    expect((await call(sim.url, LIST, { headers: AUTH })).status).toBe(200);
  });

  it('setFaults refuses an invalid fault with a usage error', async () => {
    const sim = await simulator();
    expect(() => sim.setFaults({ queue: [{ type: 'status', status: 99 }] })).toThrow(/invalid simulator faults \(queue\.0\.status/);
    expect(() => sim.setFaults({ latencyMs: -1 })).toThrow(/latencyMs/);
  });

  it('close ends a stalled body at once', async () => {
    const sim = await simulator();
    sim.setFaults({ queue: [{ type: 'slow-body' }] });
    const response = await fetch(`${sim.url}${LIST}`, { headers: AUTH });
    expect(response.status).toBe(200);
    const body = response.text();
    await sim.close();
    await expect(body).rejects.toThrow();
  });
});
