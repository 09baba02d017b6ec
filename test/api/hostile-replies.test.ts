import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '../../src/api/index.js';
import { MAX_REPLY_BYTES } from '../../src/api/transport.js';
import { failure } from './api-harness.js';
import { hostileRig, reply, type Behaviour } from './hostile-api.js';

// Replies no spec'd API sends: far too large, never ending, garbage, nonsense
// Retry-After. Each fails closed as a failure the caller already handles (retried as a dropped
// connection is, or refused as an invalid reply), never taken as an answer and never thrown out
// of the client as anything but an ApiError.

const link = { customerId: 42, deviceId: 'BTN-1' };
const TEN_MB = 10 * 1024 * 1024;

/** Headers announcing 10 MB, then the body as fast as the socket takes it. */
const tenMegabytes: Behaviour = (socket) => {
  socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${TEN_MB}\r\n\r\n`);
  socket.end(Buffer.alloc(TEN_MB, 0x20));
};

/** A chunked body that never ends, sent as fast as the socket takes it. */
const endlessStream: Behaviour = (socket) => {
  socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
  const chunk = Buffer.from(`10000\r\n${' '.repeat(0x10000)}\r\n`, 'latin1');
  const more = (): void => {
    while (!socket.destroyed && socket.write(chunk));
  };
  socket.on('drain', more);
  more();
};

/** A body that starts and then never goes on: no byte after the first. */
const endlessTrickle: Behaviour = (socket) => {
  socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n1\r\n[\r\n');
};

const sendBytes =
  (bytes: string | Buffer): Behaviour =>
  (socket: Socket) =>
    socket.end(bytes);

describe('a reply far too large', () => {
  it('10 MB with its Content-Length: cut off before the body is read, retried, then linked', async () => {
    const { client, api, events } = await hostileRig();
    api.queue.push(tenMegabytes);
    expect(await client.linkDevice(link)).toMatchObject(link);
    expect(events.map((event) => [event.attempt, event.error])).toEqual([
      [1, `the API's reply was longer than ${MAX_REPLY_BYTES / 1024} KiB and was cut off`],
      [2, undefined],
    ]);
  });

  it('a chunked body without end: cut off as it passes the bound', async () => {
    const { client, api, events } = await hostileRig();
    api.queue.push(endlessStream);
    expect(await client.listSubscriptions(42)).toHaveLength(1);
    expect(events[0]?.error).toBe(`the API's reply was longer than ${MAX_REPLY_BYTES / 1024} KiB and was cut off`);
  });

  it('every attempt too large: a transient failure once the retries are spent, never an answer', async () => {
    const { client, api } = await hostileRig();
    api.queue.push(tenMegabytes, endlessStream, tenMegabytes);
    const error = await failure(client.linkDevice(link));
    expect(error.kind).toBe('transient');
    expect(error.message).toBe(`the API's reply was longer than ${MAX_REPLY_BYTES / 1024} KiB and was cut off (3 attempts)`);
    expect(api.requests).toHaveLength(3);
  });

  it('a reply just within the bound is read whole', async () => {
    const { client, api } = await hostileRig();
    const subscription = { id: 1, customerId: 42, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] as number[] };
    const padded = `${JSON.stringify([subscription])}${' '.repeat(MAX_REPLY_BYTES - 200)}`;
    api.queue.push(sendBytes(reply(200, padded)));
    expect(await client.listSubscriptions(42)).toEqual([subscription]);
    expect(api.requests).toHaveLength(1);
  });
});

describe('a reply that never ends', () => {
  it('a body begun and never finished: the time limit covers the whole body, then retried', async () => {
    const { client, api, events } = await hostileRig({ timeoutMs: 300 });
    api.queue.push(endlessTrickle);
    expect(await client.linkDevice(link)).toMatchObject(link);
    expect(events[0]).toMatchObject({ attempt: 1, error: 'the API did not answer within 300 ms' });
  });

  it('headers that never end', async () => {
    const { client, api, events } = await hostileRig({ timeoutMs: 300 });
    api.queue.push((socket) => socket.write('HTTP/1.1 200 OK\r\nx-slow: '));
    expect(await client.listSubscriptions(42)).toHaveLength(1);
    expect(events[0]?.error).toBe('the API did not answer within 300 ms');
  });
});

describe('garbage', () => {
  it('bytes that are not HTTP: retried as a dropped connection', async () => {
    const { client, api, events } = await hostileRig();
    api.queue.push(sendBytes(Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a, 0x80])));
    expect(await client.linkDevice(link)).toMatchObject(link);
    expect(events[0]?.error).toMatch(/^the API's reply was not valid HTTP \(HPE_[A-Z_]+\)$/);
  });

  it('a 200 whose body is random bytes: an invalid reply, not retried, never a link', async () => {
    const { client, api } = await hostileRig();
    api.queue.push(sendBytes(reply(200, '\u0000\u00ff{"id":1,"customerId":42,"deviceId":"BTN-1"')));
    const error = await failure(client.linkDevice(link));
    expect(error.kind).toBe('invalid-reply');
    expect(api.requests).toHaveLength(1);
  });

  it('a compressed body nobody asked for: read as bytes, an invalid reply', async () => {
    const { client, api } = await hostileRig();
    api.queue.push(sendBytes(reply(200, '\u001f\u008b\u0008\u0000garbage', { 'content-encoding': 'gzip' })));
    expect((await failure(client.listSubscriptions(42))).kind).toBe('invalid-reply');
    expect(api.requests[0]).not.toMatch(/accept-encoding/i);
  });

  it('a Content-Length longer than the body, then the connection closed: retried', async () => {
    const { client, api, events } = await hostileRig();
    api.queue.push(sendBytes('HTTP/1.1 200 OK\r\ncontent-length: 500\r\n\r\n{"id":1'));
    expect(await client.linkDevice(link)).toMatchObject(link);
    expect(events[0]?.error).toBeDefined();
    expect(events).toHaveLength(2);
  });
});

describe('nonsense Retry-After', () => {
  it.each(['banana', '-5', '1e308', '9'.repeat(400), 'Infinity', 'NaN', '', '0x10', 'Mon, 99 Foo 20000 99:99:99 GMT', 'Fri, 31 Dec 275760 23:59:59 GMT'])(
    'a 503 with Retry-After %j waits within the policy, a finite whole delay',
    async (value) => {
      const { client, api, delays } = await hostileRig({ retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 4 } });
      api.queue.push(sendBytes(reply(503, '{}', { 'retry-after': value })));
      expect(await client.listSubscriptions(42)).toHaveLength(1);
      expect(delays).toHaveLength(1);
      const [delay = -1] = delays;
      expect(Number.isInteger(delay)).toBe(true);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxRetryAfterMs);
    },
  );

  it('a 429 asking for a century is cut to the policy', async () => {
    const { client, api, delays } = await hostileRig({ retry: { limit: 1, maxRetryAfterMs: 50 } });
    api.queue.push(sendBytes(reply(429, '{}', { 'retry-after': String(100 * 365 * 24 * 3600) })));
    expect(await client.linkDevice(link)).toMatchObject(link);
    expect(delays).toEqual([50]);
  });
});
