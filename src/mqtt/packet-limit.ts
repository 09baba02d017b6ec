// The largest MQTT message the hub takes. A message is held whole in memory before
// anyone can look at it, so anyone on the broker could make the daemon hold payloads of up to
// 256 MB, the protocol's limit, and a flood of 200 kB ones costs tens of megabytes in flight.
// Over MQTT 5 the CONNECT packet's Maximum Packet Size tells the broker, which then never sends a
// larger one (mosquitto drops it for this client, and counts it in its own log). Over 3.1.1 there
// is no way to say it: a larger message is dropped at the first look, before any handler parses
// it, and counted as invalid.

/**
 * Room for what a PUBLISH packet carries besides its payload: the fixed header (up to 5 bytes),
 * the topic (a Theengs gateway's is about 40 bytes, a Zigbee2MQTT friendly name up to a few
 * hundred), the packet id and MQTT 5's properties.
 */
export const PACKET_OVERHEAD_BYTES = 1024;

/** The Maximum Packet Size told to an MQTT 5 broker for messages of at most `maxPayloadBytes`. */
export function maximumPacketSize(maxPayloadBytes: number): number {
  return maxPayloadBytes + PACKET_OVERHEAD_BYTES;
}

/** Whether a message's payload is past the limit: dropped before any handler sees it. */
export function oversized(payload: Buffer, maxPayloadBytes: number | undefined): boolean {
  return maxPayloadBytes !== undefined && payload.length > maxPayloadBytes;
}
