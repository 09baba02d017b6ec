import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { brokerAddress } from '../mqtt/broker-address.js';
import { subackCode } from '../mqtt/broker-answers.js';
import { refusesVersion } from '../mqtt/protocol-fallback.js';

// What `check` asks the broker, with the daemon's credentials and without its side effects (no
// `online`, no will, nothing published): does it accept the login, which protocol does it speak,
// and does it grant each subscription the daemon's sources need.

export interface ProbeSettings {
  url: URL;
  username?: string;
  password?: string;
  ca?: Buffer;
  filters: readonly string[];
  timeoutMs: number;
}

export type ProbeOutcome =
  | { ok: true; protocolVersion: 4 | 5; granted: Array<{ filter: string; code: number }> }
  | { ok: false; error?: Error };

/** Connects speaking MQTT 5, and 3.1.1 when the broker refuses 5, as the daemon does. */
export async function probeBroker(settings: ProbeSettings): Promise<ProbeOutcome> {
  const five = await attempt(settings, 5);
  if (five.ok) return five;
  // Refused in words, or (an old broker) closed after CONNECT with neither an answer nor an error.
  const closedUnanswered = five.error === undefined && five.closedByBroker === true;
  if (!refusesVersion(five.error) && !closedUnanswered) return five;
  return attempt(settings, 4);
}

async function attempt(settings: ProbeSettings, protocolVersion: 4 | 5): Promise<ProbeOutcome & { closedByBroker?: boolean }> {
  const { connect } = await import('../mqtt/library.js');
  const client = connect({
    ...brokerAddress(settings.url),
    clientId: `panic-pair-check-${randomBytes(4).toString('hex')}`,
    protocolVersion,
    clean: true,
    reconnectPeriod: 0,
    connectTimeout: settings.timeoutMs,
    username: settings.username,
    password: settings.password,
    ca: settings.ca,
    rejectUnauthorized: true,
  });
  try {
    const connected = await new Promise<{ ok: true } | { ok: false; error?: Error; closedByBroker?: boolean }>((resolve) => {
      let lastError: Error | undefined;
      let closedByBroker = false;
      const timer = setTimeout(() => resolve({ ok: false }), settings.timeoutMs + 1_000);
      const done = (result: { ok: true } | { ok: false; error?: Error; closedByBroker?: boolean }): void => {
        clearTimeout(timer);
        resolve(result);
      };
      client.on('packetsend', (packet) => {
        if (packet.cmd === 'connect') client.stream?.once('end', () => (closedByBroker = true));
      });
      client.once('connect', () => done({ ok: true }));
      client.on('error', (error) => (lastError = error));
      client.once('close', () => done({ ok: false, error: lastError, closedByBroker }));
    });
    if (!connected.ok) return connected;
    const granted: Array<{ filter: string; code: number }> = [];
    for (const filter of settings.filters) granted.push({ filter, code: await subscribeCode(client, filter) });
    return { ok: true, protocolVersion, granted };
  } finally {
    await new Promise<void>((resolve) => client.end(true, {}, () => resolve()));
  }
}

/** The broker's answer to one subscription: a granted QoS, or a refusal of 0x80 or more. */
function subscribeCode(client: MqttClient, filter: string): Promise<number> {
  return new Promise((resolve) => {
    client.subscribe(filter, { qos: 0 }, (error, granted, packet) => {
      resolve(subackCode(granted, packet) ?? (error ? 0x80 : 0));
    });
  });
}
