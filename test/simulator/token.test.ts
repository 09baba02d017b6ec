import { describe, expect, it } from 'vitest';
import { AUTH, call, simulator, TOKEN } from './sim-harness.js';

// POST /__simulator/token: a rotation of the accepted token, for tests of the daemon's SIGHUP.

const LIST = '/panic-api/v2/customers/42/subscriptions';

function rotate(base: string, body: string) {
  return call(base, '/__simulator/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

describe('/__simulator/token', () => {
  it('accepts the new token from then on, and no longer the old one', async () => {
    const sim = await simulator();
    expect((await call(sim.url, LIST, { headers: AUTH })).status).toBe(200);
    const answer = await rotate(sim.url, JSON.stringify({ token: 'next-token-7a' }));
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain('next-token-7a');
    expect((await call(sim.url, LIST, { headers: AUTH })).status).toBe(401);
    expect((await call(sim.url, LIST, { headers: { authorization: 'Bearer next-token-7a' } })).status).toBe(200);
  });

  it('refuses an empty or missing token and keeps the one in force', async () => {
    const sim = await simulator();
    for (const body of ['{"token": ""}', '{"token": "  "}', '{}', 'null', 'not json']) {
      expect((await rotate(sim.url, body)).status, body).toBe(400);
    }
    expect((await call(sim.url, '/__simulator/token')).status).toBe(405);
    expect((await call(sim.url, LIST, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('is also there in process, as setToken', async () => {
    const sim = await simulator();
    sim.setToken('in-process-2');
    expect((await call(sim.url, LIST, { headers: { authorization: 'Bearer in-process-2' } })).status).toBe(200);
    expect(() => sim.setToken('')).toThrow('non-empty token');
  });
});
