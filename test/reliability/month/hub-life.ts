import { ApiTransientError } from '../../../src/api/errors.js';
import type { DeviceLink, LinkRequest, PanicApi, Subscription } from '../../../src/api/types.js';
import type { DeviceStore } from '../../../src/pairing/link-job.js';
import type { DeviceRecord } from '../../../src/store/record.js';

// The parts of a hub's month that are not the daemon's own code: an API that goes away and comes
// back, a store in memory (the soak measures what the engine keeps, not the disk), a broker whose
// connection drops, and the rhythms of a month. Each rhythm is one line of RHYTHMS: supervision
// and gateways' last wills join here as their own rhythms.

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export class FlakyApi implements PanicApi {
  down = false;
  links: DeviceLink[] = [];
  calls = 0;

  async listSubscriptions(customerId: number): Promise<Subscription[]> {
    this.calls++;
    if (this.down) throw new ApiTransientError('the API at https://api.example.com is unreachable (connection refused)', 1);
    return [{ id: 1, customerId, subscriptionTypeId: 1, status: 'active', dependantCustomerIds: [] }];
  }

  async linkDevice(request: LinkRequest): Promise<DeviceLink> {
    this.calls++;
    if (this.down) throw new ApiTransientError('the API at https://api.example.com is unreachable (connection refused)', 1);
    const link = { id: this.links.length + 1, customerId: request.customerId, deviceId: request.deviceId };
    this.links.push(link);
    return link;
  }
}

export class MemoryStore implements DeviceStore {
  readonly records = new Map<string, DeviceRecord>();
  get(deviceId: string): DeviceRecord | undefined {
    return this.records.get(deviceId);
  }
  all(): DeviceRecord[] {
    return [...this.records.values()];
  }
  async put(record: DeviceRecord): Promise<void> {
    this.records.set(record.deviceId, { ...record });
  }
  async remove(deviceId: string): Promise<boolean> {
    return this.records.delete(deviceId);
  }
}

/** A broker connection the MQTT sources subscribe on; while dropped, nothing arrives. */
export class DroppingBroker {
  dropped = false;
  readonly #handlers: Array<(topic: string, payload: Buffer) => void> = [];
  subscribe(_filter: string, onMessage: (topic: string, payload: Buffer) => void): void {
    this.#handlers.push(onMessage);
  }
  publish(topic: string, payload: string): void {
    if (this.dropped) return;
    for (const handler of this.#handlers) handler(topic, Buffer.from(payload));
  }
}

export interface HubLife {
  minute: number;
  api: FlakyApi;
  broker: DroppingBroker;
  /** Linked buttons, each reporting every few minutes. */
  buttons: string[];
  /** Linked buttons that have fallen silent (a flat battery) and report nothing. */
  silent: Set<string>;
  /** A report of the hub's own radio, past the MQTT sources. */
  hear(deviceId: string, rssi: number): void;
  /** A new button, announced once a day while a window is open. */
  newButton(): string;
  openWindow(seconds: number): void;
  pair(deviceId: string): void;
  forget(deviceId: string): void;
  askHousehold(): void;
}

export interface Rhythm {
  what: string;
  /** Minutes between its turns, and its offset in them. */
  every: number;
  at?: number;
  act(life: HubLife): void;
}

const stranger = (minute: number, n: number): string => `phone-${minute.toString(36)}-${n}`;

export const RHYTHMS: Rhythm[] = [
  {
    what: 'linked buttons report; weak radio reports behind the wall, each under a new address; a broken announcement',
    every: 5,
    act: (life) => {
      for (const id of life.buttons) {
        if (!life.silent.has(id)) life.broker.publish('panic/announce', JSON.stringify({ deviceId: id, rssi: -60, battery: 90 }));
      }
      for (let n = 0; n < 3; n++) life.hear(stranger(life.minute, n), -95);
      life.broker.publish('panic/announce', '{"deviceId": not json');
    },
  },
  { what: 'the household is asked (entitlement refreshed past its TTL)', every: 60, act: (life) => life.askHousehold() },
  { what: 'the broker drops for half an hour', every: 24 * 60, at: 7 * 60, act: (life) => (life.broker.dropped = true) },
  { what: 'the broker is back', every: 24 * 60, at: 7 * 60 + 30, act: (life) => (life.broker.dropped = false) },
  { what: 'the API goes away for two hours', every: 3 * 24 * 60, at: 13 * 60, act: (life) => (life.api.down = true) },
  { what: 'the API is back', every: 3 * 24 * 60, at: 15 * 60, act: (life) => (life.api.down = false) },
  { what: 'an installer opens a ten-minute window', every: 24 * 60, at: 10 * 60, act: (life) => life.openWindow(600) },
  {
    what: 'and presses a new button',
    every: 24 * 60,
    at: 10 * 60 + 5,
    act: (life) => life.broker.publish('panic/announce', JSON.stringify({ deviceId: life.newButton(), rssi: -50 })),
  },
  { what: 'pair <id> of a button already linked, during an outage every third day', every: 24 * 60, at: 14 * 60, act: (life) => life.pair(life.buttons[0]!) },
  { what: 'a button is forgotten', every: 7 * 24 * 60, at: 20 * 60, act: (life) => life.forget(life.buttons.at(-1)!) },
  // Supervision: the first button's battery goes flat for six hours every fifth day
  // (it is missing, then back), which the broker's daily drop never overlaps.
  { what: 'a button falls silent', every: 5 * 24 * 60, at: 24 * 60 + 16 * 60, act: (life) => life.buttons[0] !== undefined && life.silent.add(life.buttons[0]) },
  { what: 'and is back with a new battery', every: 5 * 24 * 60, at: 24 * 60 + 22 * 60, act: (life) => life.silent.clear() },
];
