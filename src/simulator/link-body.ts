// The request table of the panic-api v2 specification (its section 4.1) for
// `POST /panic-api/v2/devices`, checked field by field so every way a body can break it gets
// its own 400 message.

export interface LinkBody {
  customerId: number;
  deviceId: string;
  deviceTypeId?: number;
}

export type LinkBodyCheck =
  | { ok: true; body: LinkBody }
  /** `deviceId` is given whenever the body carried a string one, so stats can count the POST. */
  | { ok: false; message: string; deviceId?: string };

export function checkLinkBody(text: string): LinkBodyCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the body is not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'the body must be a JSON object' };
  }
  const fields = value as Record<string, unknown>;
  const deviceId = typeof fields.deviceId === 'string' ? fields.deviceId : undefined;
  const fail = (message: string): LinkBodyCheck => ({ ok: false, message, ...(deviceId === undefined ? {} : { deviceId }) });

  if (!('customerId' in fields)) return fail('customerId is required');
  if (!Number.isInteger(fields.customerId)) return fail('customerId must be an integer');
  if (!('deviceId' in fields)) return fail('deviceId is required');
  if (deviceId === undefined) return fail('deviceId must be a string');
  if (deviceId === '') return fail('deviceId must not be empty');
  if ('deviceTypeId' in fields && !Number.isInteger(fields.deviceTypeId)) return fail('deviceTypeId must be an integer');

  const body: LinkBody = { customerId: fields.customerId as number, deviceId };
  if ('deviceTypeId' in fields) body.deviceTypeId = fields.deviceTypeId as number;
  return { ok: true, body };
}
