import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { Secret } from '../../src/config/secret.js';
import { failure, rig, TOKEN } from './api-harness.js';

interface Seen {
  method?: string;
  url?: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

// A bare server that records what the client sends, for the request's exact shape.
let recorder: http.Server | undefined;
afterEach(async () => {
  recorder?.closeAllConnections();
  await new Promise((resolve) => (recorder ? recorder.close(resolve) : resolve(undefined)));
  recorder = undefined;
});

async function record(status: number, reply: unknown): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  recorder = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({ method: request.method, url: request.url, headers: request.headers, body });
      response.writeHead(status, { 'content-type': 'application/json', location: '/elsewhere' });
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => recorder?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`, seen };
}

function clientFor(baseUrl: string) {
  return createApiClient({ baseUrl, token: () => new Secret(TOKEN), timeoutMs: 2_000, maxInFlight: 2, retry: { limit: 0 } });
}

describe('what goes on the wire', () => {
  it('POST /panic-api/v2/devices with a JSON body, the bearer token, no doubled prefix', async () => {
    const { url, seen } = await record(201, { id: 5, customerId: 42, deviceId: 'BTN-1' });
    const client = clientFor(`${url}/panic-api/v2/`);
    await client.linkDevice({ customerId: 42, deviceId: 'BTN-1', deviceTypeId: 3 });
    await client.linkDevice({ customerId: 42, deviceId: 'BTN-1' });
    client.close();
    expect(seen.map((request) => [request.method, request.url])).toEqual([
      ['POST', '/panic-api/v2/devices'],
      ['POST', '/panic-api/v2/devices'],
    ]);
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen[0]?.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ customerId: 42, deviceId: 'BTN-1', deviceTypeId: 3 });
    // deviceTypeId left out when undefined, not sent as null
    expect(JSON.parse(seen[1]?.body ?? '')).toEqual({ customerId: 42, deviceId: 'BTN-1' });
  });

  it('GET /panic-api/v2/customers/{id}/subscriptions with the bearer token and no body', async () => {
    const { url, seen } = await record(200, []);
    const client = clientFor(`${url}/panic-api/v2`);
    expect(await client.listSubscriptions(42)).toEqual([]);
    client.close();
    expect(seen).toMatchObject([{ method: 'GET', url: '/panic-api/v2/customers/42/subscriptions', body: '' }]);
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('does not follow a redirect', async () => {
    const { url, seen } = await record(307, {});
    const client = clientFor(url);
    const error = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' }));
    client.close();
    expect(error.kind).toBe('failure');
    expect(error.status).toBe(307);
    expect(seen).toHaveLength(1);
  });

  it('refuses a malformed request before sending it', async () => {
    const { url, seen } = await record(200, []);
    const client = clientFor(url);
    expect((await failure(client.listSubscriptions(1.5))).kind).toBe('config');
    expect((await failure(client.linkDevice({ customerId: 42, deviceId: '' }))).kind).toBe('usage');
    expect((await failure(client.linkDevice({ customerId: 42, deviceId: 'B', deviceTypeId: 2.5 }))).kind).toBe('config');
    client.close();
    expect(seen).toHaveLength(0);
  });

  it('refuses bad options with a config error', () => {
    const base = { baseUrl: 'http://127.0.0.1:1', token: () => undefined, timeoutMs: 1_000, maxInFlight: 1 };
    expect(() => createApiClient({ ...base, maxInFlight: 0 })).toThrow(/maxInFlight/);
    expect(() => createApiClient({ ...base, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createApiClient({ ...base, retry: { limit: -1 } })).toThrow(/retry\.limit/);
    expect(() => createApiClient({ ...base, baseUrl: 'api.example.com' })).toThrow(/not a URL/);
  });
});

describe('maxInFlight', () => {
  it('never has more than maxInFlight requests at the API, across both routes', async () => {
    const { client, simulator } = await rig({ maxInFlight: 3 });
    simulator.setFaults({ latencyMs: 25 });
    let highest = 0;
    const calls = Array.from({ length: 20 }, (_, index) => {
      const call = index % 2 === 0 ? client.listSubscriptions(42) : client.linkDevice({ customerId: 42, deviceId: `BTN-${index}` });
      highest = Math.max(highest, client.inFlight());
      return call;
    });
    const results = await Promise.allSettled(calls);
    expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
    const stats = simulator.stats();
    expect(stats.requests).toEqual({ link: 10, subscriptions: 10 });
    expect(stats.maxInFlight).toBeGreaterThanOrEqual(1);
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);
    expect(highest).toBeLessThanOrEqual(3);
    expect(client.inFlight()).toBe(0);
  });
});

describe('cancelling', () => {
  it('an aborted call rejects with the signal reason and frees its slot', async () => {
    const { client, simulator } = await rig({ maxInFlight: 1 });
    simulator.setFaults({ latencyMs: 10_000 });
    const controller = new AbortController();
    const call = client.listSubscriptions(42, { signal: controller.signal });
    const waiting = client.listSubscriptions(42, { signal: controller.signal });
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(client.inFlight()).toBe(0);
  });

  it('close() ends calls in progress and refuses new ones', async () => {
    const { client, simulator } = await rig();
    simulator.setFaults({ latencyMs: 10_000 });
    const call = client.listSubscriptions(42);
    client.close();
    expect((await failure(call)).kind).toBe('failure');
    const later = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' }));
    expect(later.message).toBe('the API client is closed');
  });

  it('an onRequest that throws does not fail the call', async () => {
    const { client } = await rig({
      onRequest: () => {
        throw new Error('counter broke');
      },
    });
    expect(await client.listSubscriptions(42)).toHaveLength(1);
  });
});

describe('the token never leaks', () => {
  it('appears in no error, however it is printed', async () => {
    const errors: unknown[] = [];
    const wrong = await rig({ token: () => new Secret(`${TOKEN}-wrong`) });
    errors.push(await failure(wrong.client.listSubscriptions(42)));

    const { client, simulator, events } = await rig({ timeoutMs: 100, retry: { limit: 1 } });
    // An API that echoes the token back in its reason must not carry it into the message.
    simulator.setFaults({ queue: [{ type: 'status', status: 400, message: `token ${TOKEN} is odd` }] });
    const echoed = await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' }));
    expect(echoed.message).toBe('token [redacted] is odd');
    errors.push(echoed);
    for (const fault of [
      { type: 'status', status: 503, count: 2 },
      { type: 'drop', count: 2 },
      { type: 'delay', ms: 2_000, count: 2 },
      { type: 'not-json' },
      { type: 'other-device' },
      { type: 'status', status: 403 },
    ] as const) {
      simulator.setFaults({ queue: [fault] });
      errors.push(await failure(client.linkDevice({ customerId: 42, deviceId: 'BTN-1' })));
    }
    errors.push(await failure(client.listSubscriptions(404)));

    expect(errors).toHaveLength(9);
    for (const error of errors) {
      const printed = [
        JSON.stringify(error),
        JSON.stringify(error, Object.getOwnPropertyNames(error)),
        inspect(error, { depth: Infinity, showHidden: true }),
        String(error),
        (error as Error).stack ?? '',
      ].join('\n');
      expect(printed).not.toContain(TOKEN);
    }
    expect(JSON.stringify(events)).not.toContain(TOKEN);
  });
});
