import {
  ApiTransientError,
  ApiUnauthorizedError,
  CustomerNotFoundError,
  InvalidReplyError,
  createApiClient,
  isEntitled,
  type Subscription,
} from '../api/index.js';
import type { Config, Secret } from '../config/index.js';
import { messageOf } from '../errors.js';
import { blocked, fail, pass, type CheckResult } from './result.js';

const CUSTOMER_SETTING = 'PANIC_PAIR_CUSTOMER_ID (customerId in the config file)';
const URL_SETTING = 'PANIC_PAIR_API_URL (apiUrl in the config file)';

/**
 * API reachable and token accepted, then customer found and entitled: both from one
 * GET /customers/{id}/subscriptions, the request the daemon makes before every link.
 */
export async function checkApi(config: Config, token: Secret | undefined): Promise<[CheckResult, CheckResult]> {
  const { apiUrl, customerId } = config;
  if (apiUrl === undefined || customerId === undefined) return [blocked('api', 'configuration'), blocked('entitlement', 'configuration')];
  if (token === undefined) return [blocked('api', 'token'), blocked('entitlement', 'token')];

  // One retry at most: a pre-flight answers in seconds, and the installer can run it again.
  const api = createApiClient({ baseUrl: apiUrl, token: () => token, timeoutMs: config.apiTimeoutMs, maxInFlight: 1, retry: { limit: 1 } });
  const where = displayAddress(apiUrl);
  let subscriptions: Subscription[];
  try {
    subscriptions = await api.listSubscriptions(customerId);
  } catch (error) {
    return failureOf(error, where, customerId);
  } finally {
    api.close();
  }
  const accepted = pass('api', `${where} answered; the token is accepted`);
  if (isEntitled(customerId, subscriptions)) {
    return [accepted, pass('entitlement', `customer ${customerId} holds an active subscription`)];
  }
  const statuses = [...new Set(subscriptions.map((subscription) => subscription.status))];
  const found = subscriptions.length === 0 ? 'no subscriptions' : `${subscriptions.length} subscription(s), status ${statuses.join(', ')}`;
  return [
    accepted,
    fail(
      'entitlement',
      `customer ${customerId} holds no active subscription (${found}); no button will be linked`,
      `activate the customer's subscription in panic-api, or correct ${CUSTOMER_SETTING}`,
    ),
  ];
}

function failureOf(error: unknown, where: string, customerId: number): [CheckResult, CheckResult] {
  if (error instanceof CustomerNotFoundError) {
    // A 404 comes after the token was accepted.
    return [
      pass('api', `${where} answered; the token is accepted`),
      fail('entitlement', `customer ${customerId} is not known to the API (404)`, `correct ${CUSTOMER_SETTING}`),
    ];
  }
  if (error instanceof ApiUnauthorizedError) {
    return [
      fail('api', `the API at ${where} refused the token (401)`, 'put the hub\'s current panic-api token in the token file, then run the check again'),
      blocked('entitlement', 'api'),
    ];
  }
  const message = messageOf(error);
  let result: CheckResult;
  if (error instanceof ApiTransientError && error.status !== undefined) {
    result = fail('api', `the API at ${where} is failing: ${message}`, 'retry later; if it persists, ask the panic-api operator');
  } else if (error instanceof ApiTransientError) {
    result = fail('api', `cannot reach the API at ${where}: ${message}`, `check ${URL_SETTING} and the hub's network (DNS, proxy, firewall)`);
  } else if (error instanceof InvalidReplyError) {
    result = fail('api', `the API at ${where} answered, but not as panic-api v2 does: ${message}`, `check that ${URL_SETTING} is the panic-api's address`);
  } else {
    result = fail('api', `the API at ${where} failed: ${message}`, `check ${URL_SETTING}`);
  }
  return [result, blocked('entitlement', 'api')];
}

/** The address without any user-info, as it may be shown. */
function displayAddress(address: string): string {
  try {
    const url = new URL(address);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return address;
  }
}
