import { z } from 'zod';
import { PanicPairError } from '../errors.js';

// What a test can make the simulator do wrong. Faults in `queue` are one-shot: each applies to the
// next `count` requests of its route, in order, then is gone.

export type SimulatorRoute = 'link' | 'subscriptions';

const queued = <T extends z.ZodRawShape>(shape: T) =>
  z.strictObject({
    ...shape,
    route: z.enum(['link', 'subscriptions', 'any']).default('any'),
    count: z.int().min(1).default(1),
  });

const faultSchema = z.discriminatedUnion('type', [
  /** Answer with this status instead; 429/503 may carry Retry-After (seconds or an HTTP date). */
  queued({
    type: z.literal('status'),
    status: z.int().min(200).max(599),
    retryAfter: z.union([z.number().nonnegative(), z.string().min(1)]).optional(),
    message: z.string().optional(),
  }),
  /** Destroy the socket without answering. */
  queued({ type: z.literal('drop') }),
  /** 200 with a body that is not JSON. */
  queued({ type: z.literal('not-json') }),
  /** Send the headers and half the real body, then stall for `stallMs` (default: until the client gives up). */
  queued({ type: z.literal('slow-body'), stallMs: z.int().min(0).optional() }),
  /** Wait this long before handling the request, then answer normally. */
  queued({ type: z.literal('delay'), ms: z.int().min(0) }),
  /** Link as asked, but the reply names another device. */
  queued({ type: z.literal('other-device'), deviceId: z.string().optional() }),
  /** Link as asked, but the reply names another customer. */
  queued({ type: z.literal('other-customer'), customerId: z.int().optional() }),
]);

export const faultsSchema = z.strictObject({
  /** Every API request is answered this long after it arrived, at the soonest. */
  latencyMs: z.int().min(0).default(0),
  queue: z.array(faultSchema).default([]),
  /** POSTs for these devices get 400 "device ... cannot be linked". */
  rejectDeviceIds: z.array(z.string()).default([]),
});

/** What a test passes (route, count and every list are optional). */
export type Faults = z.input<typeof faultsSchema>;
export type Fault = z.output<typeof faultSchema>;
export type ActiveFaults = z.output<typeof faultsSchema>;

export function parseFaults(value: unknown): ActiveFaults {
  const result = faultsSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    throw new PanicPairError('usage', `invalid simulator faults (${where}${issue?.message ?? 'unknown problem'})`);
  }
  return result.data;
}

export class FaultPlan {
  #faults: ActiveFaults = parseFaults({});

  /** Replaces every fault at once. */
  set(faults: Faults): void {
    this.#faults = parseFaults(faults);
  }

  reset(): void {
    this.#faults = parseFaults({});
  }

  get latencyMs(): number {
    return this.#faults.latencyMs;
  }

  rejects(deviceId: string): boolean {
    return this.#faults.rejectDeviceIds.includes(deviceId);
  }

  /** The fault for this request, if one is queued for its route; spends one of its count. */
  take(route: SimulatorRoute): Fault | undefined {
    const queue = this.#faults.queue;
    const index = queue.findIndex((fault) => fault.route === route || fault.route === 'any');
    const fault = queue[index];
    if (!fault) return undefined;
    if (fault.count <= 1) queue.splice(index, 1);
    else queue[index] = { ...fault, count: fault.count - 1 };
    return fault;
  }

  /** A copy, for `GET /__simulator/faults`. */
  snapshot(): ActiveFaults {
    return structuredClone(this.#faults);
  }
}
