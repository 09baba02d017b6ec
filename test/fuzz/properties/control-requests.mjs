// Control and page requests as structured values (the control socket's line once parsed, and the
// page's JSON bodies): each is a request of the protocol, or refused with a message; a refusal
// never echoes more than a bounded part of what was sent.
import fc from 'fast-check';
import { checkRequest } from '../../../dist/control/requests.js';

const TYPES = ['status', 'devices', 'household', 'scan', 'window', 'forget', 'pair'];
const field = fc.oneof(fc.anything(), fc.integer(), fc.double(), fc.string(), fc.constant(undefined));
export const arbitraries = [
  fc.oneof(
    fc.anything(),
    fc.record(
      { type: fc.oneof(fc.constantFrom(...TYPES), fc.string()), seconds: field, timeoutMs: field, deviceId: fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/), field), customerId: field },
      { requiredKeys: ['type'] },
    ),
  ),
];

export function predicate(body) {
  const checked = checkRequest(body);
  if (checked.ok) {
    const request = checked.value;
    if (!TYPES.includes(request.type)) throw new Error(`accepted an unknown type ${request.type}`);
    if ('seconds' in request && !(request.seconds > 0 && request.seconds <= 86_400)) throw new Error(`seconds ${request.seconds}`);
    if ('customerId' in request && request.customerId !== undefined && !Number.isSafeInteger(request.customerId)) throw new Error('a customer id that is no integer');
  } else if (typeof checked.message !== 'string' || checked.message.length > 200) {
    throw new Error(`a refusal of ${checked.message?.length} characters`);
  }
  return true;
}
