// MQTT 3.1.1 packets encoded by hand, for the benchmarks' raw clients: a client in a few bytes of
// memory each, so one process can stand in for a publisher at full speed or for a fleet of hubs.

export function remainingLength(length) {
  const bytes = [];
  do {
    let byte = length % 128;
    length = Math.floor(length / 128);
    if (length > 0) byte |= 0x80;
    bytes.push(byte);
  } while (length > 0);
  return Buffer.from(bytes);
}

function text(value) {
  const bytes = Buffer.from(value);
  return Buffer.concat([Buffer.from([bytes.length >> 8, bytes.length & 0xff]), bytes]);
}

/** CONNECT with a clean session; `will` = { topic, payload } sent retained at QoS 1. */
export function connectPacket(clientId, { keepaliveSeconds = 60, will } = {}) {
  // 0x02 clean session; with a will: 0x04 will flag, 0x08 will QoS 1, 0x20 will retain.
  const flags = 0x02 | (will === undefined ? 0 : 0x04 | 0x08 | 0x20);
  const body = Buffer.concat([
    text('MQTT'), Buffer.from([4, flags, keepaliveSeconds >> 8, keepaliveSeconds & 0xff]), text(clientId),
    ...(will === undefined ? [] : [text(will.topic), text(will.payload)]),
  ]);
  return Buffer.concat([Buffer.from([0x10]), remainingLength(body.length), body]);
}

/** PUBLISH; QoS 1 needs a `packetId` (1 to 65535). */
export function publishPacket(topic, payload, { qos = 0, retain = false, packetId = 1 } = {}) {
  const p = Buffer.from(payload);
  const id = qos > 0 ? Buffer.from([packetId >> 8, packetId & 0xff]) : Buffer.alloc(0);
  const variable = Buffer.concat([text(topic), id]);
  const header = 0x30 | (qos << 1) | (retain ? 1 : 0);
  return Buffer.concat([Buffer.from([header]), remainingLength(variable.length + p.length), variable, p]);
}

export const PINGREQ = Buffer.from([0xc0, 0]);
export const DISCONNECT = Buffer.from([0xe0, 0]);
