import type { MqttClient } from 'mqtt';
import { errorCodeOf } from '../errors.js';

// MQTT 5 where the broker speaks it, 3.1.1 where it does not. A broker without MQTT 5 (aedes, the
// embedded demo broker; mosquitto before 1.6) answers CONNECT with CONNACK 1 "unacceptable
// protocol version" (0x84 in MQTT 5 terms), or just closes the connection. Either way, once,
// before any MQTT 5 connection succeeded: the next attempt speaks 3.1.1, and so does every later
// one (the broker is the same until the daemon restarts).

/** CONNACK codes that refuse the protocol version: 3.1.1's 1, MQTT 5's 0x84. */
const VERSION_REFUSED = new Set<unknown>([1, 0x84]);

/** The broker's answer refuses the protocol version asked for. */
function refusesVersion(error: unknown): boolean {
  return VERSION_REFUSED.has(errorCodeOf(error));
}

export interface ProtocolFallback {
  /** The version of the latest attempt; the one spoken once connected. */
  version(): 4 | 5;
}

/**
 * Watches `client` (created with protocolVersion 5) and, on a refusal of version 5, switches its
 * options to 4 and calls `onFallback` (to retry soon rather than after a backoff).
 */
export function watchProtocol(client: MqttClient, onFallback: () => void): ProtocolFallback {
  let spokeFive = false;
  let connectSent = false;
  let answered = false;
  let failed = false;
  let endedByBroker = false;

  const fallBack = (): void => {
    if (spokeFive || client.options.protocolVersion !== 5) return;
    client.options.protocolVersion = 4;
    onFallback();
  };
  client.on('packetsend', (packet) => {
    if (packet.cmd !== 'connect') return;
    connectSent = true;
    answered = false;
    failed = false;
    endedByBroker = false;
    // The broker's own close, not the client's connect time-out (which destroys the stream).
    client.stream?.once('end', () => (endedByBroker = true));
  });
  client.on('packetreceive', (packet) => {
    if (packet.cmd === 'connack') answered = true;
  });
  client.on('connect', () => {
    if (client.options.protocolVersion === 5) spokeFive = true;
  });
  client.on('error', (error) => {
    failed = true;
    if (refusesVersion(error)) fallBack();
  });
  // Closed by the broker after CONNECT with neither an answer nor an error: an old broker's way
  // to refuse a version it does not know.
  client.on('close', () => {
    if (connectSent && endedByBroker && !answered && !failed) fallBack();
    connectSent = false;
  });
  return { version: () => (client.options.protocolVersion === 5 ? 5 : 4) };
}
