import { describe, expect, it } from 'vitest';
import { ApiRejectedError, CustomerNotFoundError, InvalidReplyError } from '../../src/api/index.js';
import { Secret } from '../../src/config/secret.js';
import { failure, rig, TOKEN } from './api-harness.js';

// Every answer the spec names, over real HTTP against the simulator.

describe('listSubscriptions', () => {
  it('returns the seeded subscriptions', async () => {
    const { client, events } = await rig();
    expect(await client.listSubscriptions(42)).toEqual([
      { id: 1, customerId: 42, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] },
    ]);
    expect(events).toEqual([{ route: 'subscriptions', status: 200, ms: expect.any(Number), attempt: 1 }]);
  });

  it('404 for an unknown customer is customer-not-found, not retried', async () => {
    const { client, simulator } = await rig();
    const error = await failure(client.listSubscriptions(999));
    expect(error).toBeInstanceOf(CustomerNotFoundError);
    expect(error.kind).toBe('customer-not-found');
    expect(error.status).toBe(404);
    expect(simulator.stats().subscriptionGets).toBe(1);
  });
});

describe('linkDevice', () => {
  it('201: the link the API made', async () => {
    const { client, simulator } = await rig();
    const first = await client.linkDevice({ customerId: 42, deviceId: 'BTN-1', deviceTypeId: 3 });
    const second = await client.linkDevice({ customerId: 42, deviceId: 'BTN-2' });
    expect(first).toEqual({ id: expect.any(Number), customerId: 42, deviceId: 'BTN-1' });
    expect(second.id).toBeGreaterThan(first.id);
    expect(simulator.stats().links).toBe(2);
  });

  it('200 is success too', async () => {
    const { client } = await rig({}, { linkStatus: 200 });
    expect(await client.linkDevice({ customerId: 42, deviceId: 'BTN-1' })).toMatchObject({ customerId: 42, deviceId: 'BTN-1' });
  });

  it('400 is rejected with the API message, not retried', async () => {
    const { client, simulator } = await rig();
    const error = await failure(client.linkDevice({ customerId: 7, deviceId: 'BTN-1' }));
    expect(error).toBeInstanceOf(ApiRejectedError);
    expect(error.kind).toBe('rejected');
    expect(error.status).toBe(400);
    expect(error.message).toBe('unknown customer');
    expect(simulator.stats().postsByDevice).toEqual({ 'BTN-1': 1 });
  });

  it('400 for a device the API will not link carries its reason', async () => {
    const { client, simulator } = await rig();
    simulator.setFaults({ rejectDeviceIds: ['BTN-9'] });
    const error = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-9' }));
    expect(error.kind).toBe('rejected');
    expect(error.message).toBe('device BTN-9 cannot be linked');
  });

  it('a 400 without a reason gets the default message', async () => {
    const { client, simulator } = await rig();
    simulator.setFaults({ queue: [{ type: 'status', status: 400, message: '' }] });
    const error = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' }));
    expect(error.message).toBe('the API rejected the request (400)');
  });
});

describe('401', () => {
  it('a wrong token is unauthorized, not retried', async () => {
    const { client, simulator } = await rig({ token: () => new Secret('wrong-token') });
    const error = await failure(client.listSubscriptions(42));
    expect(error.kind).toBe('unauthorized');
    expect(error.status).toBe(401);
    const link = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' }));
    expect(link.kind).toBe('unauthorized');
    expect(simulator.stats().requests).toEqual({ link: 1, subscriptions: 1 });
    expect(simulator.stats().links).toBe(0);
  });

  it.each([
    ['no token', () => undefined],
    ['an empty token', () => new Secret('')],
  ])('%s is unauthorized and nothing is sent', async (_name, token) => {
    const { client, simulator } = await rig({ token });
    const error = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' }));
    expect(error.kind).toBe('unauthorized');
    expect(error.message).toBe('no API token configured');
    expect((await failure(client.listSubscriptions(42))).kind).toBe('unauthorized');
    expect(simulator.stats().requests).toEqual({ link: 0, subscriptions: 0 });
    expect(client.inFlight()).toBe(0);
  });

  it('asks for the token on every request, so a rotated token is used at once', async () => {
    let current = 'old-token';
    const { client } = await rig({ token: () => new Secret(current) });
    expect((await failure(client.listSubscriptions(42))).kind).toBe('unauthorized');
    current = TOKEN;
    expect(await client.listSubscriptions(42)).toHaveLength(1);
  });
});

describe('statuses the spec does not name', () => {
  it.each([302, 403, 409, 422])('%i is a failure carrying the status, not retried', async (status) => {
    const { client, simulator } = await rig();
    simulator.setFaults({ queue: [{ type: 'status', status, route: 'link' }] });
    const error = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' }));
    expect(error.kind).toBe('failure');
    expect(error.status).toBe(status);
    expect(simulator.stats().requests.link).toBe(1);
  });
});

describe('invalid replies', () => {
  it('a 2xx that is not JSON is invalid-reply, not retried', async () => {
    const { client, simulator } = await rig();
    simulator.setFaults({ queue: [{ type: 'not-json', count: 2 }] });
    const list = await failure(client.listSubscriptions(42));
    expect(list).toBeInstanceOf(InvalidReplyError);
    expect(list.kind).toBe('invalid-reply');
    expect(list.status).toBe(200);
    const link = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' }));
    expect(link.kind).toBe('invalid-reply');
    expect(simulator.stats().requests).toEqual({ link: 1, subscriptions: 1 });
  });

  it('a link naming another device is invalid-reply, never a link', async () => {
    const { client, simulator } = await rig();
    simulator.setFaults({ queue: [{ type: 'other-device', route: 'link' }] });
    const error = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' }));
    expect(error.kind).toBe('invalid-reply');
    expect(error.message).toMatch(/deviceId "BTN-1-OTHER", not the "BTN-1"/);
    expect(simulator.stats().requests.link).toBe(1);
  });

  it('a link naming another customer is invalid-reply', async () => {
    const { client, simulator } = await rig();
    simulator.setFaults({ queue: [{ type: 'other-customer', route: 'link', customerId: 43 }] });
    const error = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' }));
    expect(error.kind).toBe('invalid-reply');
    expect(error.message).toMatch(/customerId 43/);
  });
});
