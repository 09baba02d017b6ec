import type { IncomingMessage, ServerResponse } from 'node:http';
import { PanicPairError } from '../errors.js';
import type { FaultPlan } from './faults.js';
import { readBody, sendJson } from '../http/json-io.js';
import type { StatsCounter } from './stats.js';

// Test controls under /__simulator/: not part of panic-api v2, no token needed. They exist so a
// test in another process (the CLI's, the daemon's) can bend the simulator and read what it saw.
//
//   GET  /__simulator/stats    counts (see SimulatorStats)
//   GET  /__simulator/faults   the faults in force
//   POST /__simulator/faults   replace every fault with the JSON body (see Faults)
//   POST /__simulator/reset    clear stats and faults
//   POST /__simulator/token    {"token": "..."}: accept this bearer token from now on (a rotation)
//   POST /__simulator/seed     a seed ({"customers": [...]}): the customers from now on (a subscription
//                              suspended or renewed while a hub runs)

export const CONTROL_PREFIX = '/__simulator/';

export interface ControlState {
  faults: FaultPlan;
  stats: StatsCounter;
  reset(): void;
  /** Throws a PanicPairError('usage') for an empty token. */
  setToken(token: string): void;
  /** Throws a PanicPairError('config') for an invalid seed. */
  setSeed(seed: unknown): void;
}

const ROUTES: Record<string, string> = { stats: 'GET', faults: 'GET, POST', reset: 'POST', token: 'POST', seed: 'POST' };

export async function answerControl(request: IncomingMessage, response: ServerResponse, path: string, state: ControlState): Promise<void> {
  const name = path.slice(CONTROL_PREFIX.length);
  const allowed = ROUTES[name];
  if (allowed === undefined) return sendJson(response, 404, { message: `no simulator control at ${path}` });
  const method = request.method ?? 'GET';
  if (!allowed.split(', ').includes(method)) return sendJson(response, 405, { message: `use ${allowed}` }, { allow: allowed });

  if (method === 'GET') {
    return sendJson(response, 200, name === 'stats' ? state.stats.snapshot() : state.faults.snapshot());
  }
  const text = await readBody(request);
  // The rest of a body over the bound is left unread: the connection must not be used again.
  if (text === undefined) response.setHeader('connection', 'close');
  if (name === 'reset') {
    state.reset();
    return sendJson(response, 200, { reset: true });
  }
  let value: unknown;
  try {
    value = JSON.parse(text ?? '');
  } catch {
    return sendJson(response, 400, { message: `${name} must be a JSON object` });
  }
  try {
    if (name === 'token') {
      const token = (value as { token?: unknown } | null)?.token;
      state.setToken(typeof token === 'string' ? token : '');
      // The token itself is not echoed: a simulator log may end up in a bug report.
      return sendJson(response, 200, { rotated: true });
    }
    if (name === 'seed') {
      state.setSeed(value);
      return sendJson(response, 200, { customers: value });
    }
    state.faults.set(value as Parameters<FaultPlan['set']>[0]);
  } catch (error) {
    if (error instanceof PanicPairError) return sendJson(response, 400, { message: error.message });
    throw error;
  }
  sendJson(response, 200, state.faults.snapshot());
}
