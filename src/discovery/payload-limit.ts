import { MAX_ANNOUNCEMENT_BYTES } from './announce.js';
import { MAX_GATEWAY_MESSAGE_BYTES } from './ble-gateway.js';
import { MAX_DEVICE_LIST_BYTES, MAX_DEVICE_REPORT_BYTES } from './zigbee-devices.js';
import { MAX_BRIDGE_EVENT_BYTES } from './zigbee2mqtt.js';

// The largest MQTT payload any reader of the hub takes, told to the broker as the connection's
// limit (src/mqtt/packet-limit.ts). Each reader refuses more than its own limit unread; this one
// keeps larger messages from reaching the daemon at all. What the readers take:
// - announcements and BLE gateways' reports: 4 kB (a real one is 100 to 300 bytes);
// - gateways' last wills, Zigbee2MQTT's bridge state and Home Assistant's status: a word;
// - the hub's own retained Home Assistant configs, read back at each connect: 1 to 2 kB each;
// - with Zigbee2MQTT: its bridge events and device reports, 64 kB (an interview's `exposes` is a
//   few kilobytes), and its retained device list, 4 MB (every device's `exposes`: a network of a
//   few hundred devices runs to a megabyte or two).
// So 64 kB without Zigbee2MQTT, room to spare over every reader, and the device list's 4 MB with
// it: the list cannot be split, and missing it would leave every Zigbee button unheard.

/** Without Zigbee2MQTT: the largest of the readers' limits, with room for the hub's own configs. */
export const MQTT_PAYLOAD_LIMIT_BYTES = Math.max(64 * 1024, MAX_ANNOUNCEMENT_BYTES, MAX_GATEWAY_MESSAGE_BYTES, MAX_BRIDGE_EVENT_BYTES, MAX_DEVICE_REPORT_BYTES);

export function largestMqttPayload(options: { zigbee2mqtt: boolean }): number {
  return options.zigbee2mqtt ? Math.max(MQTT_PAYLOAD_LIMIT_BYTES, MAX_DEVICE_LIST_BYTES) : MQTT_PAYLOAD_LIMIT_BYTES;
}
