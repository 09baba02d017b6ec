// The API's reply bodies (the subscription list, a link) and its Retry-After values: each body is
// parsed to what the spec allows or refused with an invalid-reply error; each Retry-After gives a
// wait within the policy's bounds. The first byte chooses which, the rest is the input.
import { parseLinkReply, parseSubscriptionsReply } from '../../../dist/api/replies.js';
import { InvalidReplyError } from '../../../dist/api/errors.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay } from '../../../dist/api/retry-delay.js';
import { expect, json, tally } from './verdict.mjs';

export const outcomes = tally();
const NOW = Date.UTC(2026, 10, 26, 9, 0, 0);

export function fuzz(data) {
  const which = (data[0] ?? 0) % 3;
  const text = data.subarray(1).toString('utf8');
  if (which === 2) {
    const asked = parseRetryAfter(text, NOW);
    expect(asked === undefined || (Number.isFinite(asked) && asked >= 0), `a wait of ${asked}`);
    for (const status of [429, 503, 500]) {
      const delay = retryDelay({ retry: 1 + (data[1] ?? 0) % 8, status, retryAfter: text, now: NOW, random: () => 0.5, policy: DEFAULT_RETRY_POLICY });
      expect(Number.isFinite(delay) && delay >= 0 && delay <= DEFAULT_RETRY_POLICY.maxRetryAfterMs, `a delay of ${delay}`);
    }
    if (asked === undefined) outcomes.rejected();
    else outcomes.accepted();
    return;
  }
  try {
    if (which === 0) {
      const list = parseSubscriptionsReply(text, 200);
      expect(Array.isArray(list) && list.every((s) => Number.isInteger(s.customerId) && typeof s.status === 'string'), 'a list of subscriptions');
    } else {
      const link = parseLinkReply(text, 201, { deviceId: '7F3A9C', customerId: 42 });
      expect(link.deviceId === '7F3A9C' && link.customerId === 42, 'the link asked for');
    }
    outcomes.accepted();
  } catch (error) {
    if (!(error instanceof InvalidReplyError)) throw error;
    expect(!error.message.includes(text) || text.length < 8, 'the body is not echoed whole');
    outcomes.rejected();
  }
}

export function seeds() {
  const as = (which, body) => Buffer.concat([Buffer.of(which), typeof body === 'string' ? Buffer.from(body) : json(body)]);
  return [
    as(0, [{ id: 1, customerId: 42, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [43] }]),
    as(0, [{ id: 1, customerId: 42, subscriptionTypeId: 1, status: 'cancelled', dependantCustomerIds: [], extra: { deep: [1] } }]),
    as(0, { error: 'not found' }),
    as(1, { id: 9, customerId: 42, deviceId: '7F3A9C' }),
    as(1, { id: 9.5, customerId: 42, deviceId: '7F3A9C' }),
    as(1, '<html>Bad gateway</html>'),
    as(2, '120'),
    as(2, 'Wed, 26 Nov 2026 09:01:00 GMT'),
    as(2, '1e400'),
    as(2, '-5'),
  ];
}
