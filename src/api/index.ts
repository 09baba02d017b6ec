// The panic-api v2 client: what the rest of panic-pair imports.
export type { DeviceLink, LinkRequest, PanicApi, Subscription } from './types.js';
export { createApiClient } from './client.js';
export type { ApiClient, ApiClientOptions, ApiRequestEvent, ApiRoute } from './client.js';
export {
  ApiError,
  ApiFailureError,
  ApiRejectedError,
  ApiTransientError,
  ApiUnauthorizedError,
  CustomerNotFoundError,
  InvalidReplyError,
} from './errors.js';
export { isEntitled } from './entitlement.js';
export { householdOf, hubAlone } from './household.js';
export type { HouseholdMember, HouseholdRole } from './household.js';
export { apiRoot, API_PREFIX } from './base-url.js';
export { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay } from './retry-delay.js';
export type { RetryPolicy } from './retry-delay.js';
export { deviceLinkSchema, subscriptionListSchema } from './replies.js';
