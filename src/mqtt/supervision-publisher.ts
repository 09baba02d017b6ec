import type { AvailabilityPayload, ButtonLiveness, SupervisionPayload } from '../supervision/types.js';
import type { MqttConnection } from './connection.js';
import { availabilityTopic, supervisionTopic } from './topics.js';

// A linked button's liveness on MQTT, kept apart from its link state as
// Zigbee2MQTT keeps availability apart from state, in the form others already read:
// `<prefix>/devices/<id>/availability` `{"state":"online"|"offline"}`, and beside it
// `<prefix>/devices/<id>/supervision` for what Home Assistant's battery and "Last heard" show.

export interface SupervisionPublisher {
  /**
   * Call on each change of a linked button's supervision, battery or battery-low, and when its
   * last-heard time is saved (at most 4 times an hour at rest), never at every report.
   */
  liveness(deviceId: string, liveness: ButtonLiveness): void;
  /** Clears both retained topics of a forgotten button (empty retained payloads). */
  forgotten(deviceId: string): void;
}

export function createSupervisionPublisher(connection: MqttConnection, prefix: string): SupervisionPublisher {
  return {
    liveness(deviceId, liveness) {
      const availability = availabilityTopic(prefix, deviceId);
      // `unknown` publishes nothing: a hub that cannot hear (a dead radio, a restart) must not
      // mark a working button offline, nor claim it online. `unsupervised` clears the topic, so an
      // `offline` from before its profile said "trigger only" never lingers.
      if (liveness.supervision === 'online' || liveness.supervision === 'missing') {
        const payload: AvailabilityPayload = { state: liveness.supervision === 'online' ? 'online' : 'offline' };
        connection.publishRetained(availability, JSON.stringify(payload));
      } else if (liveness.supervision === 'unsupervised') {
        connection.publishRetained(availability, '');
      }
      const payload: SupervisionPayload = {
        supervision: liveness.supervision,
        lastHeard: liveness.lastHeard,
        battery: liveness.battery,
        batteryLow: liveness.batteryLow,
        ...(liveness.imitated === undefined ? {} : { imitated: liveness.imitated }),
      };
      connection.publishRetained(supervisionTopic(prefix, deviceId), JSON.stringify(payload));
    },
    // A subscriber must not go on seeing, even after a restart, a button the hub no longer holds.
    forgotten(deviceId) {
      connection.publishRetained(availabilityTopic(prefix, deviceId), '');
      connection.publishRetained(supervisionTopic(prefix, deviceId), '');
    },
  };
}
