import { randomBytes } from 'node:crypto';
import type { Config } from '../config/index.js';
import { messageOf } from '../errors.js';
import { brokerForLogs, passwordFrom, readCredentialFile } from '../mqtt/credentials.js';
import { fail, off, pass, type CheckResult } from './result.js';

const CONNECT_TIMEOUT_MS = 5_000;
const URL_SETTING = 'PANIC_PAIR_MQTT_URL';

/**
 * The broker accepts a connection with the daemon's credentials. A plain client, not the daemon's
 * connection: that one publishes `online` and sets a will, which a pre-flight must not do.
 */
export async function checkMqtt(config: Config): Promise<CheckResult> {
  const mqtt = config.mqtt;
  if (mqtt === undefined) return off('mqtt', `off (${URL_SETTING} is not set)`);
  const url = new URL(mqtt.url);
  const broker = brokerForLogs(url);

  let password: string | undefined;
  if (mqtt.passwordFile !== undefined) {
    const read = readCredentialFile(mqtt.passwordFile);
    if (!read.ok) return fail('mqtt', `cannot read the MQTT password file ${mqtt.passwordFile}: ${read.reason}`, 'check PANIC_PAIR_MQTT_PASSWORD_FILE');
    password = passwordFrom(read.value);
  }
  let ca: Buffer | undefined;
  if (mqtt.caFile !== undefined && url.protocol === 'mqtts:') {
    const read = readCredentialFile(mqtt.caFile);
    if (!read.ok) return fail('mqtt', `cannot read the MQTT CA file ${mqtt.caFile}: ${read.reason}`, 'check PANIC_PAIR_MQTT_CA_FILE');
    ca = read.value;
  }

  const { connect } = await import('../mqtt/library.js');
  const client = connect(url.toString(), {
    clientId: `panic-pair-check-${randomBytes(4).toString('hex')}`,
    protocolVersion: 4,
    clean: true,
    reconnectPeriod: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    username: mqtt.username,
    password,
    ca,
    rejectUnauthorized: true,
  });
  const outcome = await new Promise<{ ok: true } | { ok: false; error?: Error }>((resolve) => {
    let lastError: Error | undefined;
    const timer = setTimeout(() => resolve({ ok: false }), CONNECT_TIMEOUT_MS + 1_000);
    const done = (result: { ok: true } | { ok: false; error?: Error }): void => {
      clearTimeout(timer);
      resolve(result);
    };
    client.once('connect', () => done({ ok: true }));
    client.on('error', (error) => (lastError = error));
    client.once('close', () => done({ ok: false, error: lastError }));
  });
  await new Promise<void>((resolve) => client.end(true, {}, () => resolve()));

  if (outcome.ok) return pass('mqtt', `connected to ${broker}${mqtt.username === undefined ? '' : ` as ${mqtt.username}`}`);
  return failureOf(outcome.error, broker);
}

function failureOf(error: Error | undefined, broker: string): CheckResult {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (error === undefined) {
    return fail('mqtt', `no MQTT connection to ${broker} within ${CONNECT_TIMEOUT_MS / 1000} s`, `check ${URL_SETTING} (mqtt:// or mqtts://, host and port) and, for mqtts, PANIC_PAIR_MQTT_CA_FILE`);
  }
  if (code === 'ECONNREFUSED') {
    return fail('mqtt', `no MQTT broker answers at ${broker} (connection refused)`, `start the broker (e.g. systemctl start mosquitto) or correct ${URL_SETTING}`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return fail('mqtt', `the broker's host name in ${broker} does not resolve`, `correct ${URL_SETTING}, or the hub's DNS`);
  }
  if (code === 4 || code === 5 || code === 134 || code === 135) {
    return fail('mqtt', `the broker at ${broker} refused the login (${messageOf(error)})`, 'check PANIC_PAIR_MQTT_USERNAME and the password in PANIC_PAIR_MQTT_PASSWORD_FILE');
  }
  return fail('mqtt', `cannot connect to the broker at ${broker}: ${messageOf(error)}`, `check ${URL_SETTING} and the hub's network`);
}
