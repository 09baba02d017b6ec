import type { Secret } from '../config/secret.js';
import { PanicPairError } from '../errors.js';
import { apiRoot } from './base-url.js';
import {
  ApiError,
  ApiFailureError,
  ApiTransientError,
  ApiUnauthorizedError,
  InvalidReplyError,
  errorForStatus,
  isRetryableStatus,
} from './errors.js';
import { parseLinkReply, parseSubscriptionsReply } from './replies.js';
import { RequestSlots } from './request-slots.js';
import { DEFAULT_RETRY_POLICY, retryDelay, type RetryPolicy } from './retry-delay.js';
import { createTransport, type Exchange } from './transport.js';
import type { DeviceLink, LinkRequest, PanicApi, Subscription } from './types.js';

export type ApiRoute = 'link' | 'subscriptions';

/** One HTTP attempt, retries included, so the daemon can count what the API did. */
export interface ApiRequestEvent {
  route: ApiRoute;
  /** The HTTP status, when the API answered. */
  status?: number;
  /** What went wrong with this attempt, free of secrets; absent on success. */
  error?: string;
  ms: number;
  /** 1 for the first attempt of a call, 2 for its first retry, ... */
  attempt: number;
}

export interface ApiClientOptions {
  baseUrl: string;
  /** Asked before every attempt, so a rotated token is used from the next request on. */
  token: () => Secret | undefined;
  /** Time limit of one attempt, body included. */
  timeoutMs: number;
  /** Most requests in flight at once, both routes together. */
  maxInFlight: number;
  retry?: Partial<RetryPolicy>;
  /** Jitter source in [0, 1); Math.random by default. */
  random?: () => number;
  onRequest?: (event: ApiRequestEvent) => void;
  /** Waits between attempts; tests pass one that records the delay instead of waiting. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The clock for a Retry-After given as an HTTP date. */
  now?: () => number;
}

export type ApiClient = PanicApi & {
  /** Requests holding a slot right now. */
  inFlight(): number;
  /** Ends keep-alive sockets; calls in progress or made later reject with kind 'failure'. */
  close(): void;
};

type Outgoing = { method: 'GET' | 'POST'; url: string; json?: Record<string, unknown> };

type Verdict<T> = { ok: true; value: T } | { ok: false; error: ApiError; retryable: boolean; retryAfter?: string };

function sleepFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One signal for a call that aborts when the caller's does or the client closes. Listeners are
 * removed when the call ends: the client lives as long as the daemon, its calls do not.
 */
function callSignalOf(caller: AbortSignal | undefined, closed: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const sources = caller ? [caller, closed] : [closed];
  const onAbort = (event: Event): void => controller.abort((event.target as AbortSignal).reason);
  for (const source of sources) {
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    source.addEventListener('abort', onAbort);
  }
  const dispose = (): void => {
    for (const source of sources) source.removeEventListener('abort', onAbort);
  };
  return { signal: controller.signal, dispose };
}

function requireCount(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new PanicPairError('config', `API client: ${name} must be an integer of at least ${min}, got ${value}`);
  }
  return value;
}

function retryPolicyOf(retry: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...retry };
  for (const [name, value] of Object.entries(policy)) requireCount(`retry.${name}`, value, 0);
  return policy;
}

function checkLinkRequest(request: LinkRequest): void {
  requireCount('customerId', request.customerId, 0);
  if (typeof request.deviceId !== 'string' || request.deviceId === '') {
    throw new PanicPairError('usage', 'a link request needs a non-empty deviceId');
  }
  if (request.deviceTypeId !== undefined) requireCount('deviceTypeId', request.deviceTypeId, 0);
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const root = apiRoot(options.baseUrl);
  // Seconds from configuration may give a fraction of a millisecond; got wants whole ones.
  const timeoutMs = requireCount('timeoutMs', Math.ceil(options.timeoutMs), 1);
  const slots = new RequestSlots(requireCount('maxInFlight', options.maxInFlight, 1));
  const policy = retryPolicyOf(options.retry);
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? sleepFor;
  const now = options.now ?? Date.now;
  const transport = createTransport(timeoutMs);
  const closed = new AbortController();

  function bearer(): string {
    const token = options.token()?.reveal();
    if (token === undefined || token === '') throw new ApiUnauthorizedError('no API token configured');
    return token;
  }

  function judge<T>(exchange: Exchange, token: string, accept: (status: number, body: string) => T): Verdict<T> {
    if (exchange.kind === 'network') {
      const { failure } = exchange;
      const error = failure.error ?? new ApiTransientError(failure.message, 1);
      return { ok: false, error, retryable: failure.retryable };
    }
    const { status, body } = exchange;
    if (status >= 200 && status <= 299) {
      try {
        return { ok: true, value: accept(status, body) };
      } catch (error) {
        if (error instanceof InvalidReplyError) return { ok: false, error, retryable: false };
        throw error;
      }
    }
    if (isRetryableStatus(status)) {
      const error = new ApiTransientError(`the API answered ${status}`, 1, status);
      return { ok: false, error, retryable: true, ...(exchange.retryAfter === undefined ? {} : { retryAfter: exchange.retryAfter }) };
    }
    // An API that echoes the request must not carry the token into a message.
    return { ok: false, error: errorForStatus(status, body.split(token).join('[redacted]')), retryable: false };
  }

  function report(event: ApiRequestEvent): void {
    try {
      options.onRequest?.(event);
    } catch {
      // A counter that throws must not turn a good link into a failed one.
    }
  }

  async function call<T>(
    route: ApiRoute,
    exchange: Outgoing,
    signal: AbortSignal | undefined,
    accept: (status: number, body: string) => T,
  ): Promise<T> {
    const { signal: callSignal, dispose } = callSignalOf(signal, closed.signal);
    try {
      return await attempts(route, exchange, callSignal, accept);
    } finally {
      dispose();
    }
  }

  async function attempts<T>(
    route: ApiRoute,
    exchange: Outgoing,
    callSignal: AbortSignal,
    accept: (status: number, body: string) => T,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      callSignal.throwIfAborted();
      const release = await slots.acquire(callSignal);
      const started = performance.now();
      let verdict: Verdict<T>;
      let status: number | undefined;
      try {
        const token = bearer();
        const answer = await transport.send({ ...exchange, token, signal: callSignal });
        status = answer.kind === 'reply' ? answer.status : undefined;
        verdict = judge(answer, token, accept);
      } finally {
        release();
      }
      const ms = Math.round(performance.now() - started);
      report({ route, ms, attempt, ...(status === undefined ? {} : { status }), ...(verdict.ok ? {} : { error: verdict.error.message }) });
      if (verdict.ok) return verdict.value;
      if (!verdict.retryable) throw verdict.error;
      if (attempt > policy.limit) {
        const tries = attempt === 1 ? '1 attempt' : `${attempt} attempts`;
        throw new ApiTransientError(`${verdict.error.message} (${tries})`, attempt, verdict.error.status);
      }
      const delay = retryDelay({
        retry: attempt,
        ...(status === undefined ? {} : { status }),
        ...(verdict.retryAfter === undefined ? {} : { retryAfter: verdict.retryAfter }),
        now: now(),
        random,
        policy,
      });
      await sleep(delay, callSignal);
    }
  }

  return {
    listSubscriptions(customerId: number, callOptions?: { signal?: AbortSignal }): Promise<Subscription[]> {
      return Promise.resolve().then(() => {
        requireCount('customerId', customerId, 0);
        const url = `${root}/customers/${customerId}/subscriptions`;
        return call('subscriptions', { method: 'GET', url }, callOptions?.signal, (status, body) => parseSubscriptionsReply(body, status));
      });
    },
    linkDevice(request: LinkRequest, callOptions?: { signal?: AbortSignal }): Promise<DeviceLink> {
      return Promise.resolve().then(() => {
        checkLinkRequest(request);
        const json: Record<string, unknown> = { customerId: request.customerId, deviceId: request.deviceId };
        if (request.deviceTypeId !== undefined) json.deviceTypeId = request.deviceTypeId;
        const accept = (status: number, body: string): DeviceLink => parseLinkReply(body, status, request);
        return call('link', { method: 'POST', url: `${root}/devices`, json }, callOptions?.signal, accept);
      });
    },
    inFlight: () => slots.active,
    close() {
      if (!closed.signal.aborted) closed.abort(new ApiFailureError('the API client is closed'));
      transport.close();
    },
  };
}
