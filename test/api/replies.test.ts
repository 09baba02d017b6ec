import { describe, expect, it } from 'vitest';
import { apiMessageOf, errorForStatus, InvalidReplyError } from '../../src/api/errors.js';
import { parseLinkReply, parseSubscriptionsReply } from '../../src/api/replies.js';

const request = { customerId: 42, deviceId: 'BTN-1' };

function invalid(run: () => unknown): InvalidReplyError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidReplyError);
    expect((error as InvalidReplyError).kind).toBe('invalid-reply');
    return error as InvalidReplyError;
  }
  throw new Error('expected an InvalidReplyError');
}

describe('parseSubscriptionsReply', () => {
  const good = { id: 1, customerId: 42, subscriptionTypeId: 3, status: 'active', dependantCustomerIds: [7] };

  it('accepts the spec list and drops fields the spec does not name', () => {
    const body = JSON.stringify([{ ...good, plan: 'gold' }]);
    expect(parseSubscriptionsReply(body, 200)).toEqual([good]);
    expect(parseSubscriptionsReply('[]', 200)).toEqual([]);
  });

  it.each([
    ['not JSON', 'Service OK', /not JSON/],
    ['an object instead of a list', JSON.stringify({ subscriptions: [good] }), /breaks the spec/],
    ['a missing status', JSON.stringify([{ ...good, status: undefined }]), /0\.status/],
    ['a numeric status', JSON.stringify([{ ...good, status: 1 }]), /0\.status/],
    ['a fractional id', JSON.stringify([{ ...good, id: 1.5 }]), /0\.id/],
    ['a string customerId', JSON.stringify([{ ...good, customerId: '42' }]), /0\.customerId/],
    ['dependants that are not integers', JSON.stringify([good, { ...good, dependantCustomerIds: ['7'] }]), /1\.dependantCustomerIds/],
    ['dependants missing', JSON.stringify([{ ...good, dependantCustomerIds: undefined }]), /dependantCustomerIds/],
    ['null', 'null', /breaks the spec/],
  ])('refuses %s', (_name, body, message) => {
    const error = invalid(() => parseSubscriptionsReply(body, 200));
    expect(error.message).toMatch(message);
    expect(error.status).toBe(200);
  });
});

describe('parseLinkReply', () => {
  it('accepts a link naming the customer and device asked for', () => {
    expect(parseLinkReply(JSON.stringify({ id: 9, customerId: 42, deviceId: 'BTN-1', extra: true }), 201, request)).toEqual({
      id: 9,
      customerId: 42,
      deviceId: 'BTN-1',
    });
  });

  it.each([
    ['not JSON', '<html></html>', /not JSON/],
    ['empty', '', /not JSON/],
    ['a list', '[]', /breaks the spec/],
    ['no id', JSON.stringify({ customerId: 42, deviceId: 'BTN-1' }), /id/],
    ['a string id', JSON.stringify({ id: '9', customerId: 42, deviceId: 'BTN-1' }), /id/],
    ['a numeric deviceId', JSON.stringify({ id: 9, customerId: 42, deviceId: 1 }), /deviceId/],
  ])('refuses %s', (_name, body, message) => {
    expect(invalid(() => parseLinkReply(body, 201, request)).message).toMatch(message);
  });

  it('refuses a link naming another device, and says so', () => {
    const error = invalid(() => parseLinkReply(JSON.stringify({ id: 9, customerId: 42, deviceId: 'BTN-2' }), 201, request));
    expect(error.message).toMatch(/deviceId "BTN-2", not the "BTN-1"/);
  });

  it('refuses a link naming another customer, and says so', () => {
    const error = invalid(() => parseLinkReply(JSON.stringify({ id: 9, customerId: 43, deviceId: 'BTN-1' }), 200, request));
    expect(error.message).toMatch(/customerId 43, not the 42/);
  });
});

describe('what a refused reply says', () => {
  it('names the route of a body that is not JSON', () => {
    expect(invalid(() => parseSubscriptionsReply('Service OK', 200)).message).toBe('the API answered 200 to the subscription list with a body that is not JSON');
    expect(invalid(() => parseLinkReply('<html>', 201, request)).message).toBe('the API answered 201 to the link request with a body that is not JSON');
  });

  it('names the body itself when the fault is at its top, else the path to the fault', () => {
    expect(invalid(() => parseSubscriptionsReply('{}', 200)).message).toMatch(/^the subscription list breaks the spec \(the body: \S/);
    expect(invalid(() => parseLinkReply('[]', 201, request)).message).toMatch(/^the link reply breaks the spec \(the body: \S/);
    expect(invalid(() => parseLinkReply('{"id":9,"customerId":42}', 201, request)).message).toMatch(/^the link reply breaks the spec \(deviceId: \S/);
  });

  it('quotes another device whole up to 70 characters, and cuts a longer one to 70 with an ellipsis', () => {
    const fits = 'D'.repeat(68); // 70 characters with its quotes
    const long = 'E'.repeat(100);
    const named = (deviceId: string): string => invalid(() => parseLinkReply(JSON.stringify({ id: 9, customerId: 42, deviceId }), 201, request)).message;
    expect(named(fits)).toBe(`the link reply names deviceId "${fits}", not the "BTN-1" asked for`);
    expect(named(long)).toBe(`the link reply names deviceId "${'E'.repeat(68)}…, not the "BTN-1" asked for`);
  });
});

describe('the API message of a 400', () => {
  it.each([
    ['a message field', JSON.stringify({ message: 'unknown customer' }), 'unknown customer'],
    ['an error field', JSON.stringify({ error: 'bad device' }), 'bad device'],
    ['message before error', JSON.stringify({ error: 'b', message: 'a' }), 'a'],
    ['short plain text', 'deviceId is required\n', 'deviceId is required'],
    ['control characters flattened', JSON.stringify({ message: 'line one\nline\ttwo' }), 'line one line two'],
  ])('takes %s', (_name, body, expected) => {
    expect(apiMessageOf(body)).toBe(expected);
  });

  it.each([
    ['a JSON object without a string reason', JSON.stringify({ message: 5, code: 'E1' })],
    ['a JSON list', '["x"]'],
    ['an HTML page', '<html><body>Bad Request</body></html>'],
    ['an empty body', ''],
    ['blank text', '  \n '],
  ])('finds none in %s', (_name, body) => {
    expect(apiMessageOf(body)).toBeUndefined();
  });

  it('is bounded to 200 characters', () => {
    const message = apiMessageOf(JSON.stringify({ message: 'x'.repeat(5_000) }));
    expect(message).toHaveLength(200);
  });

  it('falls back to a default message', () => {
    const error = errorForStatus(400, '');
    expect(error.kind).toBe('rejected');
    expect(error.message).toBe('the API rejected the request (400)');
    expect(error.status).toBe(400);
  });
});

describe('errorForStatus', () => {
  it.each([
    [400, 'rejected'],
    [401, 'unauthorized'],
    [404, 'customer-not-found'],
    [301, 'failure'],
    [403, 'failure'],
    [409, 'failure'],
    [418, 'failure'],
  ])('%i is %s, carrying the status', (status, kind) => {
    const error = errorForStatus(status, '{}');
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
  });
});
