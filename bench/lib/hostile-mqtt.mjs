// The MQTT side of the hostile bench: every topic the daemon reads, sent broken,
// oversized, deeply nested, with prototype keys, with made-up ids by the ten thousand and with
// out-of-range readings, beside reports of the linked buttons (which must stay linked and heard).
import { bytes, int, pick, random, text } from './hostile-random.mjs';

export const GATEWAYS = 'home/+/BTtoMQTT/+';
export const ZIGBEE = 'zigbee2mqtt';

/** Settings that make the daemon read every MQTT topic it can. */
export function mqttSettings() {
  return { PANIC_PAIR_MQTT_BLE_GATEWAYS: GATEWAYS, PANIC_PAIR_ZIGBEE2MQTT_PREFIX: ZIGBEE, PANIC_PAIR_HOMEASSISTANT: 'true' };
}

let made = 0;
const madeUpId = () => `FLOOD-${(made++).toString(36).toUpperCase()}`;
const mac = () => Array.from({ length: 6 }, () => int(0, 255).toString(16).padStart(2, '0')).join(':').toUpperCase();
const nested = (depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** A payload a parser must survive, whatever the topic. */
function brokenPayload() {
  return pick([
    () => bytes(300),
    () => Buffer.alloc(200_000, pick([0x7b, 0x5b, 0x61, 0x22])),
    () => Buffer.from(nested(5_000)),
    () => Buffer.from(`[${'['.repeat(5_000)}`),
    () => Buffer.from('{"__proto__":{"linked":true,"deviceId":"X"},"constructor":{"prototype":{"polluted":1}},"deviceId":"PROTO-1"}'),
    () => Buffer.from(`{"deviceId":"${text(80)}"}`),
  ])();
}

/** One message, its topic and payload, of the mix. `linked`: ids of the buttons linked before. */
export function hostileMessage(prefix, linked) {
  const gateway = random() < 0.5 ? `gw${int(0, 3)}` : `made-up-${int(0, 1e9)}`;
  const target = pick(['announce', 'announce', 'gateway', 'gateway', 'will', 'zigbee-event', 'zigbee-state', 'state', 'homeassistant']);
  const topic = {
    announce: `${prefix}/announce`,
    gateway: `home/${gateway}/BTtoMQTT/${mac().replaceAll(':', '')}`,
    will: `home/${gateway}/LWT`,
    'zigbee-event': `${ZIGBEE}/bridge/event`,
    'zigbee-state': `${ZIGBEE}/bridge/state`,
    state: `${prefix}/devices/${pick(linked)}`,
    homeassistant: 'homeassistant/status',
  }[target];
  if (random() < 0.25) return { topic, payload: brokenPayload() };
  return { topic, payload: Buffer.from(wellFormed(target, linked)) };
}

/** Well-formed JSON of the topic's shape, with made-up ids and readings out of range. */
function wellFormed(target, linked) {
  const deviceId = random() < 0.9 ? madeUpId() : pick(linked);
  switch (target) {
    case 'announce':
      return JSON.stringify({ deviceId, rssi: pick([-50, -500, 1e308, 'loud']), battery: pick([50, -1, 101, 1e9, null]) });
    case 'gateway':
      return JSON.stringify({ id: mac(), name: `PANIC-${deviceId.slice(-6)}`, rssi: pick([-60, -999, 40]), batt: pick([90, -5, 300]), servicedatauuid: 'fcd2', servicedata: '40' + bytes(8).toString('hex') });
    case 'will':
      return pick(['online', 'offline', text(20)]);
    case 'zigbee-event':
      return JSON.stringify({ type: 'device_interview', data: { friendly_name: deviceId, ieee_address: `0x${bytes(8).toString('hex').padEnd(16, '0')}`, status: 'successful', supported: true, definition: { model: text(10), vendor: 'x', exposes: [] } } });
    case 'zigbee-state':
      return pick(['{"state":"online"}', '{"state":"offline"}', 'online', text(30)]);
    case 'state':
      return JSON.stringify({ state: 'linked', linkId: 1, at: new Date().toISOString() });
    default:
      return pick(['online', 'offline', text(10)]);
  }
}
