import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FaultPlan, SimulatorRoute } from './faults.js';
import { isJsonRequest } from './http-io.js';
import { checkLinkBody, type LinkBodyCheck } from './link-body.js';
import type { SeededSubscription } from './seed.js';
import type { StatsCounter } from './stats.js';

// The two routes of panic-api v2 the hub uses, answered as the spec describes. Nothing here knows
// about faults beyond per-device rejection: those are laid over the answer by fault-delivery.ts.

export const API_PREFIX = '/panic-api/v2';

export interface Reply {
  status: number;
  body: unknown;
}

export interface ApiState {
  token: string;
  customers: Map<number, SeededSubscription[]>;
  linkStatus: 200 | 201;
  faults: FaultPlan;
  stats: StatsCounter;
  nextLinkId(): number;
}

export type RouteMatch =
  | { kind: 'route'; route: SimulatorRoute; customerIdText?: string }
  | { kind: 'not-found' }
  | { kind: 'wrong-method'; allow: string };

const SUBSCRIPTIONS_PATH = new RegExp(`^${API_PREFIX}/customers/([^/]+)/subscriptions$`);

export function matchApiRoute(method: string | undefined, path: string): RouteMatch {
  if (path === `${API_PREFIX}/devices`) {
    return method === 'POST' ? { kind: 'route', route: 'link' } : { kind: 'wrong-method', allow: 'POST' };
  }
  const match = SUBSCRIPTIONS_PATH.exec(path);
  if (match?.[1] !== undefined) {
    return method === 'GET'
      ? { kind: 'route', route: 'subscriptions', customerIdText: match[1] }
      : { kind: 'wrong-method', allow: 'GET' };
  }
  return { kind: 'not-found' };
}

function authorized(request: IncomingMessage, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const UNAUTHORIZED: Reply = { status: 401, body: { message: 'missing or invalid bearer token' } };

export function answerLink(request: IncomingMessage, bodyText: string | undefined, check: LinkBodyCheck | undefined, state: ApiState): Reply {
  if (!authorized(request, state.token)) return UNAUTHORIZED;
  if (bodyText === undefined) return { status: 400, body: { message: 'the body is too large' } };
  if (!isJsonRequest(request)) return { status: 400, body: { message: 'Content-Type must be application/json' } };
  const result = check ?? checkLinkBody(bodyText);
  if (!result.ok) return { status: 400, body: { message: result.message } };
  const { customerId, deviceId } = result.body;
  if (!state.customers.has(customerId)) return { status: 400, body: { message: 'unknown customer' } };
  if (state.faults.rejects(deviceId)) return { status: 400, body: { message: `device ${deviceId} cannot be linked` } };
  state.stats.linked();
  return { status: state.linkStatus, body: { id: state.nextLinkId(), customerId, deviceId } };
}

export function answerSubscriptions(request: IncomingMessage, customerIdText: string, state: ApiState): Reply {
  if (!authorized(request, state.token)) return UNAUTHORIZED;
  const subscriptions = /^\d+$/.test(customerIdText) ? state.customers.get(Number(customerIdText)) : undefined;
  if (!subscriptions) return { status: 404, body: { message: 'customer not found' } };
  return { status: 200, body: subscriptions };
}
