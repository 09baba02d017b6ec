// The panic-api v2 as the rest of the daemon sees it. The client knows nothing of buttons.
export interface Subscription {
  id: number;
  customerId: number;
  subscriptionTypeId: number;
  status: string;
  dependantCustomerIds: number[];
}

export interface LinkRequest {
  customerId: number;
  deviceId: string;
  deviceTypeId?: number;
}

export interface DeviceLink {
  id: number;
  customerId: number;
  deviceId: string;
}

export interface PanicApi {
  /** GET /panic-api/v2/customers/{customerId}/subscriptions */
  listSubscriptions(customerId: number, options?: { signal?: AbortSignal }): Promise<Subscription[]>;
  /** POST /panic-api/v2/devices; resolves only with a reply that names this customer and device. */
  linkDevice(request: LinkRequest, options?: { signal?: AbortSignal }): Promise<DeviceLink>;
}

/** A customer's entitlement as the API last answered it: `entitled` is null while no answer is known
 * (none yet, or the latest check failed without one). */
export interface EntitlementState {
  customerId: number;
  entitled: boolean | null;
  checkedAt?: string;
  /** Why the last check failed, when it did. */
  error?: string;
}

/** How the API last took the hub's token; `missing` when the hub has none. */
export type TokenState = 'unknown' | 'accepted' | 'refused' | 'missing';
