import type { EntitlementState } from '../api/types.js';
import type { DeviceRecord } from '../store/record.js';
import type { MqttConnection } from './connection.js';
import { deviceTopic, entitlementTopic, type DeviceStatePayload, type EntitlementPayload } from './topics.js';

export interface StatePublisher {
  /** Retained on `<prefix>/devices/<deviceId>`; call on each state change. */
  device(record: DeviceRecord): void;
  /** Clears the retained `<prefix>/devices/<deviceId>` of a forgotten device (an empty retained payload). */
  forgotten(deviceId: string): void;
  /** Retained on `<prefix>/entitlement`; nothing is published while the answer is unknown. */
  entitlement(state: EntitlementState): void;
}

// Home automation reads the daemon's view from retained topics: a dashboard that starts later
// still gets the last state of every button and of the subscription.
export function createStatePublisher(connection: MqttConnection, prefix: string): StatePublisher {
  return {
    device(record) {
      const payload: DeviceStatePayload = { state: record.state, customerId: record.customerId, at: record.updatedAt };
      if (record.linkId !== undefined) payload.linkId = record.linkId;
      connection.publishRetained(deviceTopic(prefix, record.deviceId), JSON.stringify(payload), { now: true });
    },
    // A subscriber must not go on seeing, even after a restart, a button the hub no longer holds.
    forgotten(deviceId) {
      connection.publishRetained(deviceTopic(prefix, deviceId), '');
    },
    entitlement(state) {
      if (state.entitled === null) return;
      const payload: EntitlementPayload = {
        customerId: state.customerId,
        entitled: state.entitled,
        checkedAt: state.checkedAt ?? new Date().toISOString(),
      };
      connection.publishRetained(entitlementTopic(prefix), JSON.stringify(payload));
    },
  };
}
