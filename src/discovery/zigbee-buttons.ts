import { startMqttSource, type MqttSource, type MqttSourceOptions, type Reading } from './mqtt-source.js';
import type { ProfileMatcher } from './profiles.js';
import type { Sighting } from '../sighting.js';
import { addZigbeeBattery, isDeviceTopicName, parseDeviceList, readDeviceReport } from './zigbee-devices.js';

// A Zigbee button's own reports as sightings: Zigbee2MQTT's retained device list says which
// friendly names are buttons (their definition matches a Zigbee profile), and each button's topic
// `<base>/<friendly name>` is subscribed to exactly. Exact topics rather than `<base>/#`: the
// daemon hears only buttons, not every plug and sensor of a busy network; a friendly name holding
// `/` needs nothing special; sub-topics (`/availability`, `/set`) never arrive; and an MQTT 5
// broker does not send the bridge's events twice (once for `#`, once for `bridge/event`).

/** Button topics subscribed at most; a renamed button keeps its old subscription until restart. */
export const MAX_ZIGBEE_BUTTONS = 256;

export type ZigbeeButtonSourceOptions = Omit<MqttSourceOptions, 'filter' | 'what' | 'read'> & {
  prefix: string;
  matcher: ProfileMatcher;
  /** The sightings' source word: `zigbee2mqtt`. */
  source: string;
};

interface KnownButton {
  deviceId: string;
  deviceTypeId?: number;
}

export function startZigbeeButtonSource(options: ZigbeeButtonSourceOptions): MqttSource {
  const { prefix, matcher, logger, counters, source } = options;
  /** By topic, from the latest device list. */
  let buttons = new Map<string, KnownButton>();
  const subscribed = new Map<string, MqttSource>();

  const readReport = (topic: string, payload: Buffer, at: number, retained: boolean): Reading => {
    // A retained report is the broker's copy of an old one: it says nothing of the button now.
    // An empty one clears that copy.
    if (retained || payload.length === 0) return undefined;
    const button = buttons.get(topic);
    if (button === undefined) return undefined;
    const report = readDeviceReport(payload);
    if ('invalid' in report) return report;
    const sighting: Sighting = { deviceId: button.deviceId, source, at };
    if (button.deviceTypeId !== undefined) sighting.deviceTypeId = button.deviceTypeId;
    if (addZigbeeBattery(sighting, report)) counters.batteryDropped += 1;
    return sighting;
  };

  const readList = (_topic: string, payload: Buffer): Reading => {
    if (payload.length === 0) return undefined;
    const devices = parseDeviceList(payload);
    if (!Array.isArray(devices)) return devices;
    const next = new Map<string, KnownButton>();
    let adding = 0;
    for (const device of devices) {
      const match = matcher.zigbee(device.definition, device.ieeeAddress);
      if (match === undefined || !match.ok) continue;
      const topic = `${prefix}/${device.friendlyName}`;
      if (!isDeviceTopicName(device.friendlyName)) {
        logger.warn({ deviceId: match.deviceId, friendlyName: device.friendlyName }, 'a Zigbee button whose friendly name cannot be a topic (+, # or too long): its reports are not heard');
        continue;
      }
      if (!subscribed.has(topic)) {
        if (subscribed.size + adding >= MAX_ZIGBEE_BUTTONS) {
          logger.warn({ deviceId: match.deviceId, most: MAX_ZIGBEE_BUTTONS }, 'too many Zigbee buttons: the reports of this one are not heard');
          continue;
        }
        adding += 1;
      }
      next.set(topic, match.deviceTypeId === undefined ? { deviceId: match.deviceId } : { deviceId: match.deviceId, deviceTypeId: match.deviceTypeId });
    }
    buttons = next;
    for (const topic of next.keys()) {
      if (subscribed.has(topic)) continue;
      subscribed.set(topic, startMqttSource({ ...options, filter: topic, what: 'Zigbee2MQTT device report', read: readReport }));
    }
    logger.debug({ buttons: next.size, devices: devices.length }, 'Zigbee2MQTT device list read');
    return undefined;
  };

  const list = startMqttSource({ ...options, filter: `${prefix}/bridge/devices`, what: 'Zigbee2MQTT device list', read: readList });
  return {
    stop() {
      list.stop();
      for (const report of subscribed.values()) report.stop();
    },
  };
}
