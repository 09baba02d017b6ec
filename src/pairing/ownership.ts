import type { DeviceRecord } from '../store/record.js';

// One button, one link. A button belongs to the customer of its record
// once a POST may have reached the API for it: `linked`, `linking` (a request in flight or cut by
// a crash) and `failed` (a request whose answer was lost may still have linked it). A `rejected`
// button was refused by the API and belongs to nobody. The API has no unlink, so a button that
// belongs to one customer is never posted for another.

/** The customer the button belongs to when that is not `customerId`; otherwise undefined. */
export function otherOwner(record: DeviceRecord | undefined, customerId: number): number | undefined {
  if (record === undefined || record.state === 'rejected') return undefined;
  return record.customerId === customerId ? undefined : record.customerId;
}

/** Why the button cannot be linked to `customerId`, for the installer who asked. */
export function belongsMessage(record: DeviceRecord, customerId: number): string {
  const owner = record.customerId;
  const base = `${record.deviceId} belongs to customer ${owner}, not ${customerId}`;
  if (record.state === 'linked') {
    return `${base}: it is linked to customer ${owner} (link ${record.linkId ?? 'unknown'}) and a button is linked to one customer only (the API has no unlink); nothing was posted`;
  }
  return `${base}: a link to customer ${owner} was asked for (${record.state}) and may have reached the API; nothing was posted. If that was a mistake, \`panic-pair forget ${record.deviceId}\` first`;
}
