import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PanicPairError } from '../errors.js';
import { answerLink, answerSubscriptions, matchApiRoute, type ApiState } from './api-routes.js';
import { answerControl, CONTROL_PREFIX } from './control.js';
import { answerWithFault, deliver, replacesAnswer } from './fault-delivery.js';
import { FaultPlan, type Fault, type Faults } from './faults.js';
import { readBody, sendJson } from '../http/json-io.js';
import { pause, pauseUntil } from './http-io.js';
import { checkLinkBody } from './link-body.js';
import { customersOf, DEFAULT_SEED, type Seed } from './seed.js';
import { StatsCounter, type SimulatorStats } from './stats.js';

export interface SimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The bearer token the API accepts. */
  token: string;
  /** Default: DEFAULT_SEED, customer 42 with one active subscription. */
  seed?: Seed;
  /** The status of a successful link; the spec does not name one. Default 201. */
  linkStatus?: 200 | 201;
  /** Called once each request is over, for a one-line log. */
  onRequest?: (entry: SimulatorLogEntry) => void;
}

export interface SimulatorLogEntry {
  method: string;
  path: string;
  /** The status sent, or 'dropped' when the connection ended without one. */
  status: number | 'dropped';
  /** From the request's arrival to its end, to a tenth of a millisecond. */
  ms: number;
  /** The fault applied, by type. */
  fault?: Fault['type'];
}

export interface Simulator {
  /** `http://127.0.0.1:PORT`: the base address to give the client. */
  url: string;
  customerIds: number[];
  close(): Promise<void>;
  /** Replaces every fault (see Faults); throws a PanicPairError('usage') for an invalid one. */
  setFaults(faults: Faults): void;
  stats(): SimulatorStats;
  /** Clears stats and faults; link ids keep increasing. */
  reset(): void;
  /** Accepts this bearer token from now on, and no other (a rotation); throws for an empty one. */
  setToken(token: string): void;
  /** The customers and subscriptions from now on; throws a PanicPairError('config') for an invalid seed. */
  setSeed(seed: Seed): void;
}

function baseAddress(address: AddressInfo): string {
  // A wildcard address is reachable through loopback; print the address a client can use.
  if (address.address === '0.0.0.0') return `http://127.0.0.1:${address.port}`;
  if (address.address === '::') return `http://[::1]:${address.port}`;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  checkToken(options.token);
  const faults = new FaultPlan();
  const stats = new StatsCounter();
  const closing = new AbortController();
  let lastLinkId = 0;
  const state: ApiState = {
    token: options.token,
    customers: customersOf(options.seed ?? DEFAULT_SEED),
    linkStatus: options.linkStatus ?? 201,
    faults,
    stats,
    nextLinkId: () => (lastLinkId += 1),
  };
  const reset = (): void => {
    faults.reset();
    stats.reset();
  };
  const setToken = (token: string): void => {
    checkToken(token);
    state.token = token;
  };
  const setSeed = (seed: unknown): void => {
    state.customers = customersOf(seed, 'the seed sent');
  };

  async function answerApi(
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
    arrivedAt: number,
  ): Promise<Fault | undefined> {
    const match = matchApiRoute(request.method, path);
    if (match.kind === 'not-found') return void sendJson(response, 404, { message: `no route ${path}` });
    if (match.kind === 'wrong-method') return void sendJson(response, 405, { message: `use ${match.allow}` }, { allow: match.allow });
    response.once('close', stats.enter(match.route));

    const bodyText = match.route === 'link' ? await readBody(request) : '';
    // The rest of a body over the bound is left unread: the connection must not be used again.
    if (bodyText === undefined) response.setHeader('connection', 'close');
    const check = match.route === 'link' && bodyText !== undefined ? checkLinkBody(bodyText) : undefined;
    const deviceId = check?.ok ? check.body.deviceId : check?.deviceId;
    if (deviceId !== undefined) stats.post(deviceId, check?.ok ? check.body.customerId : undefined);

    // An API with 20 ms of latency answers 20 ms after the request reached it: the time spent
    // reading the body is part of those 20 ms, not added to them.
    if (faults.latencyMs > 0) await pauseUntil(arrivedAt + faults.latencyMs, closing.signal);
    const fault = faults.take(match.route);
    if (fault?.type === 'delay') await pause(fault.ms, closing.signal);
    if (closing.signal.aborted) return fault;
    if (fault && replacesAnswer(fault)) {
      answerWithFault(request, response, fault);
      return fault;
    }
    const reply =
      match.route === 'link'
        ? answerLink(request, bodyText, check, state)
        : answerSubscriptions(request, match.customerIdText ?? '', state);
    await deliver(response, reply, fault, closing.signal);
    return fault;
  }

  const server = createServer((request, response) => {
    const started = performance.now();
    const path = new URL(request.url ?? '/', 'http://simulator').pathname;
    let fault: Fault | undefined;
    response.once('close', () => {
      options.onRequest?.({
        method: request.method ?? '?',
        path,
        status: response.headersSent ? response.statusCode : 'dropped',
        ms: Math.round((performance.now() - started) * 10) / 10,
        ...(fault ? { fault: fault.type } : {}),
      });
    });
    const work = path.startsWith(CONTROL_PREFIX)
      ? answerControl(request, response, path, { faults, stats, reset, setToken, setSeed })
      : answerApi(request, response, path, started).then((applied) => void (fault = applied));
    // Nothing a client sends may take the simulator down; a request that breaks it just ends.
    work.catch(() => response.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${options.host ?? '127.0.0.1'}:${options.port ?? 0}`;
      const reason = error.code === 'EADDRINUSE' ? 'that port is already in use' : (error.code ?? error.message);
      reject(new PanicPairError('usage', `the simulator cannot listen on ${where}: ${reason}`));
    });
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });

  let closed: Promise<void> | undefined;
  return {
    url: baseAddress(server.address() as AddressInfo),
    customerIds: [...state.customers.keys()],
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
    setFaults: (next) => faults.set(next),
    stats: () => stats.snapshot(),
    reset,
    setToken,
    setSeed,
  };
}

function checkToken(token: unknown): asserts token is string {
  if (typeof token !== 'string' || token.trim() === '') {
    throw new PanicPairError('usage', 'the simulator needs a non-empty token to accept');
  }
}
