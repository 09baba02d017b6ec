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
