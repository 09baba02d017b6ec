import { describe, expect, it } from 'vitest';
import { AUTH, call, JSON_AUTH, post, simulator, TOKEN } from './sim-harness.js';

const LIST = '/panic-api/v2/customers/42/subscriptions';

describe('POST /panic-api/v2/devices', () => {
  it('links with 201 by default, ids increasing', async () => {
    const sim = await simulator();
    const first = await post(sim.url, JSON.stringify({ customerId: 42, deviceId: 'A', deviceTypeId: 2 }));
    const second = await post(sim.url, JSON.stringify({ customerId: 42, deviceId: 'B', extra: 'ignored' }));
    expect(first.status).toBe(201);
    expect(first.json).toEqual({ id: 1, customerId: 42, deviceId: 'A' });
    expect(second.json).toEqual({ id: 2, customerId: 42, deviceId: 'B' });
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    expect(sim.stats()).toMatchObject({ links: 2, postsByDevice: { A: 1, B: 1 } });
  });

  it('answers 200 when told to', async () => {
    const sim = await simulator({ linkStatus: 200 });
    expect((await post(sim.url, JSON.stringify({ customerId: 42, deviceId: 'A' }))).status).toBe(200);
  });

  it.each([
    ['not JSON', '{customerId: 42', 'the body is not valid JSON'],
    ['empty', '', 'the body is not valid JSON'],
    ['an array', '[{"customerId":42,"deviceId":"A"}]', 'the body must be a JSON object'],
    ['null', 'null', 'the body must be a JSON object'],
    ['a string', '"A"', 'the body must be a JSON object'],
    ['a number', '42', 'the body must be a JSON object'],
    ['customerId missing', '{"deviceId":"A"}', 'customerId is required'],
    ['customerId fractional', '{"customerId":1.5,"deviceId":"A"}', 'customerId must be an integer'],
    ['customerId a string', '{"customerId":"42","deviceId":"A"}', 'customerId must be an integer'],
    ['customerId null', '{"customerId":null,"deviceId":"A"}', 'customerId must be an integer'],
    ['deviceId missing', '{"customerId":42}', 'deviceId is required'],
    ['deviceId a number', '{"customerId":42,"deviceId":7}', 'deviceId must be a string'],
    ['deviceId null', '{"customerId":42,"deviceId":null}', 'deviceId must be a string'],
    ['deviceId empty', '{"customerId":42,"deviceId":""}', 'deviceId must not be empty'],
    ['deviceTypeId fractional', '{"customerId":42,"deviceId":"A","deviceTypeId":2.5}', 'deviceTypeId must be an integer'],
    ['deviceTypeId a string', '{"customerId":42,"deviceId":"A","deviceTypeId":"2"}', 'deviceTypeId must be an integer'],
    ['deviceTypeId null', '{"customerId":42,"deviceId":"A","deviceTypeId":null}', 'deviceTypeId must be an integer'],
    ['an unknown customer', '{"customerId":7,"deviceId":"A"}', 'unknown customer'],
  ])('400 for %s', async (_name, body, message) => {
    const sim = await simulator();
    const answer = await post(sim.url, body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ message });
    expect(sim.stats().links).toBe(0);
  });

  it('400 for a body that is not declared as JSON', async () => {
    const sim = await simulator();
    const answer = await post(sim.url, '{"customerId":42,"deviceId":"A"}', { ...AUTH, 'content-type': 'text/plain' });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ message: 'Content-Type must be application/json' });
  });

  it('400 for a body larger than any link', async () => {
    const sim = await simulator();
    const answer = await post(sim.url, JSON.stringify({ customerId: 42, deviceId: 'A', pad: 'x'.repeat(100_000) }));
    expect(answer.status).toBe(400);
  });

  it('counts POSTs per device whatever the answer', async () => {
    const sim = await simulator();
    await post(sim.url, '{"customerId":7,"deviceId":"A"}');
    await post(sim.url, '{"customerId":42,"deviceId":"A"}', { 'content-type': 'application/json' });
    await post(sim.url, '{"customerId":42,"deviceId":"A"}');
    expect(sim.stats()).toMatchObject({ postsByDevice: { A: 3 }, links: 1, requests: { link: 3, subscriptions: 0 } });
  });
});

describe('GET /panic-api/v2/customers/{customerId}/subscriptions', () => {
  it('200 with the seeded subscriptions, customerId filled in', async () => {
    const sim = await simulator();
    const answer = await call(sim.url, LIST, { headers: AUTH });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([{ id: 1, customerId: 42, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] }]);
    expect(sim.stats().subscriptionGets).toBe(1);
  });

  it("keeps a seeded customerId other than the customer's, and extra fields", async () => {
    const sim = await simulator({
      seed: {
        customers: [
          { id: 8, subscriptions: [{ id: 3, subscriptionTypeId: 2, status: 'active', dependantCustomerIds: [8], customerId: 5, plan: 'x' }] },
          { id: 9, subscriptions: [] },
        ],
      },
    });
    expect((await call(sim.url, '/panic-api/v2/customers/8/subscriptions', { headers: AUTH })).json).toEqual([
      { id: 3, subscriptionTypeId: 2, status: 'active', dependantCustomerIds: [8], customerId: 5, plan: 'x' },
    ]);
    expect((await call(sim.url, '/panic-api/v2/customers/9/subscriptions', { headers: AUTH })).json).toEqual([]);
    expect((await call(sim.url, LIST, { headers: AUTH })).status).toBe(404);
  });

  it.each(['999', 'abc', '4.2', '-42', '%34%32'])('404 for customer %s', async (id) => {
    const sim = await simulator();
    const answer = await call(sim.url, `/panic-api/v2/customers/${id}/subscriptions`, { headers: AUTH });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ message: 'customer not found' });
  });

  it('ignores a query string', async () => {
    const sim = await simulator();
    expect((await call(sim.url, `${LIST}?page=2`, { headers: AUTH })).status).toBe(200);
  });
});

describe('authorization', () => {
  it.each([
    ['no header', {}],
    ['a wrong token', { authorization: 'Bearer nope' }],
    ['the token without the scheme', { authorization: TOKEN }],
    ['another scheme', { authorization: `Basic ${TOKEN}` }],
    ['a longer token', { authorization: `Bearer ${TOKEN}x` }],
  ])('401 with %s, on both routes', async (_name, headers: Record<string, string>) => {
    const sim = await simulator();
    expect((await call(sim.url, LIST, { headers })).status).toBe(401);
    const answer = await post(sim.url, '{"customerId":42,"deviceId":"A"}', { ...headers, 'content-type': 'application/json' });
    expect(answer.status).toBe(401);
    expect(sim.stats().links).toBe(0);
  });

  it('401 comes before 404 and 400', async () => {
    const sim = await simulator();
    expect((await call(sim.url, '/panic-api/v2/customers/999/subscriptions')).status).toBe(401);
    expect((await post(sim.url, 'not json', { 'content-type': 'application/json' })).status).toBe(401);
  });

  it('takes the scheme in any case', async () => {
    const sim = await simulator();
    expect((await call(sim.url, LIST, { headers: { authorization: `bearer ${TOKEN}` } })).status).toBe(200);
  });
});

describe('other paths and methods', () => {
  it.each(['/', '/panic-api/v2', '/panic-api/v2/devices/1', '/panic-api/v1/devices', '/panic-api/v2/customers/42', '/panic-api/v2/subscriptions'])(
    '404 for %s',
    async (path) => {
      const sim = await simulator();
      expect((await call(sim.url, path, { headers: AUTH })).status).toBe(404);
    },
  );

  it('405 with Allow for another method on a known route', async () => {
    const sim = await simulator();
    const get = await call(sim.url, '/panic-api/v2/devices', { headers: AUTH });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const del = await call(sim.url, LIST, { method: 'DELETE', headers: AUTH });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET');
    expect((await call(sim.url, LIST, { method: 'POST', headers: JSON_AUTH, body: '{}' })).status).toBe(405);
  });
});
