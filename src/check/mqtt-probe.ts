import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { brokerAddress } from '../mqtt/broker-address.js';
import { subackCode } from '../mqtt/broker-answers.js';
import { watchProtocol } from '../mqtt/protocol-fallback.js';

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
  if (five.ok || five.refusedFive !== true) return five;
  return attempt(settings, 4);
}

/** An outcome, and for MQTT 5 whether the broker refused that version. */
type Attempt = ProbeOutcome & { refusedFive?: boolean };

async function attempt(settings: ProbeSettings, protocolVersion: 4 | 5): Promise<Attempt> {
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
  // Whether the broker refused MQTT 5 (in words, or an old broker's close with no answer) is the
  // daemon's own rule; its listeners come first, so they have decided before `close` settles here.
  let refusedFive = false;
  if (protocolVersion === 5) watchProtocol(client, () => (refusedFive = true));
  try {
    const connected = await new Promise<{ ok: true } | Attempt>((resolve) => {
      let lastError: Error | undefined;
      const timer = setTimeout(() => resolve({ ok: false }), settings.timeoutMs + 1_000);
      const done = (result: { ok: true } | Attempt): void => {
        clearTimeout(timer);
        resolve(result);
      };
      client.once('connect', () => done({ ok: true }));
      client.on('error', (error) => (lastError = error));
      client.once('close', () => done({ ok: false, error: lastError, refusedFive }));
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
