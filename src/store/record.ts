// One row of the pairing store, as `devices --json` prints it.
export type DeviceState = 'linking' | 'linked' | 'rejected' | 'failed';

export interface DeviceRecord {
  deviceId: string;
  state: DeviceState;
  customerId: number;
  /** Where the button was seen when the link was asked for (`ble`, `mqtt`, an adapter's name, or `cli`). */
  source: string;
  deviceTypeId?: number;
  /** The `id` that `POST /devices` returned; set when linked. */
  linkId?: number;
  /** ISO-8601; set when linked. */
  linkedAt?: string;
  /** ISO-8601 of the last state change. */
  updatedAt: string;
  /** The API's message (rejected) or the failure (failed), never a secret. */
  error?: string;
}
