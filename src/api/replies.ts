import { z } from 'zod';
import { InvalidReplyError } from './errors.js';
import type { DeviceLink, LinkRequest, Subscription } from './types.js';

// The reply bodies of the panic-api v2 specification (its sections 2 and 4). Fields it does not
// list are allowed and dropped.

const subscriptionSchema = z.object({
  id: z.int(),
  customerId: z.int(),
  subscriptionTypeId: z.int(),
  status: z.string(),
  dependantCustomerIds: z.array(z.int()),
});

export const subscriptionListSchema = z.array(subscriptionSchema);

export const deviceLinkSchema = z.object({
  id: z.int(),
  customerId: z.int(),
  deviceId: z.string(),
});

function parseJson(body: string, status: number, what: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    // The parser's own message quotes the body; the status and the route are enough to act on.
    throw new InvalidReplyError(`the API answered ${status} to ${what} with a body that is not JSON`, status);
  }
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'it does not match the spec';
  const path = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the body';
  return `${path}: ${issue.message}`;
}

function quote(value: string): string {
  const text = JSON.stringify(value);
  return text.length > 70 ? `${text.slice(0, 69)}…` : text;
}

export function parseSubscriptionsReply(body: string, status: number): Subscription[] {
  const result = subscriptionListSchema.safeParse(parseJson(body, status, 'the subscription list'));
  if (!result.success) {
    throw new InvalidReplyError(`the subscription list breaks the spec (${firstIssue(result.error)})`, status);
  }
  return result.data;
}

/** A link counts only when it names the very customer and device asked for. */
export function parseLinkReply(body: string, status: number, request: LinkRequest): DeviceLink {
  const result = deviceLinkSchema.safeParse(parseJson(body, status, 'the link request'));
  if (!result.success) {
    throw new InvalidReplyError(`the link reply breaks the spec (${firstIssue(result.error)})`, status);
  }
  const link = result.data;
  if (link.deviceId !== request.deviceId) {
    throw new InvalidReplyError(
      `the link reply names deviceId ${quote(link.deviceId)}, not the ${quote(request.deviceId)} asked for`,
      status,
    );
  }
  if (link.customerId !== request.customerId) {
    throw new InvalidReplyError(
      `the link reply names customerId ${link.customerId}, not the ${request.customerId} asked for`,
      status,
    );
  }
  return link;
}
