// The API client (src/api/client.ts) against a loopback server that answers each request with any
// status, any Retry-After and other headers, a body of any shape and size, or a body that never
// ends: every call ends, in time, with a value the spec allows or an ApiError of a kind; never
// another exception, never a hang.
import { createServer } from 'node:http';
import fc from 'fast-check';
import { createApiClient } from '../../../dist/api/client.js';
import { ApiError } from '../../../dist/api/errors.js';
import { Secret } from '../../../dist/config/secret.js';

let reply;
const server = createServer((request, response) => {
  request.resume();
  const { status, headers, body, endless } = reply;
  try {
    response.writeHead(status, headers);
  } catch {
    response.writeHead(status);
  }
  if (endless) {
    response.write(body);
    return; // never ended; the client's time limit must end it
  }
  response.end(body);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
server.unref();
const baseUrl = `http://127.0.0.1:${server.address().port}`;
const client = createApiClient({
  baseUrl,
  token: () => new Secret('tok-fuzz-never-print'),
  timeoutMs: 60,
  maxInFlight: 2,
  retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 2 },
  sleep: async () => undefined,
});

const headerValue = fc.oneof(fc.constantFrom('0', '1', '120', '1e9', '-3', 'Wed, 21 Oct 2015 07:28:00 GMT', 'soon', ''), fc.string({ maxLength: 40 }));
const body = fc.oneof(
  fc.json().map((text) => Buffer.from(text)),
  fc.constantFrom('[{"id":1,"customerId":42,"subscriptionTypeId":1,"status":"active","dependantCustomerIds":[]}]', '{"id":1,"customerId":42,"deviceId":"7F3A9C"}', '{"message":"nope"}', '').map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
  fc.integer({ min: 64 * 1024, max: 2 * 1024 * 1024 }).map((size) => Buffer.alloc(size, 0x5b)),
);
export const arbitraries = [
  fc.record({
    status: fc.oneof(fc.constantFrom(200, 201, 204, 301, 400, 401, 403, 404, 409, 429, 500, 502, 503), fc.integer({ min: 100, max: 599 })),
    headers: fc.record({ 'retry-after': headerValue, 'content-type': fc.constantFrom('application/json', 'text/html', 'application/octet-stream') }, { requiredKeys: [] }),
    body,
    endless: fc.boolean(),
  }),
  fc.boolean(),
];

export async function predicate(answer, link) {
  // 1xx is not a final answer a server may write this way, and 204/304 carry no body.
  reply = answer.status < 200 ? { ...answer, status: 200 } : answer;
  const started = performance.now();
  try {
    const value = link ? await client.linkDevice({ deviceId: '7F3A9C', customerId: 42 }) : await client.listSubscriptions(42);
    if (link ? value.deviceId !== '7F3A9C' : !Array.isArray(value)) throw new Error(`an answer the spec does not allow was accepted: ${JSON.stringify(value).slice(0, 100)}`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.message.includes('tok-fuzz-never-print')) throw new Error('the token in an error message');
  }
  const took = performance.now() - started;
  if (took > 1_000) throw new Error(`a call took ${Math.round(took)} ms`);
  return true;
}
