import { readFileSync } from 'node:fs';
import { PanicPairError, messageOf } from '../errors.js';

// Read at every connect, not once at start: an installer who rotates the broker password or the
// CA only replaces the file, and the next reconnect uses it (the password is read through
// config/secret-file.ts, owner-only). Read synchronously because mqtt.js builds the CONNECT
// packet synchronously right after its `reconnect` event.

export type FileRead = { ok: true; value: Buffer } | { ok: false; reason: string };

export function readCredentialFile(path: string): FileRead {
  try {
    return { ok: true, value: readFileSync(path) };
  } catch (error) {
    return { ok: false, reason: messageOf(error) };
  }
}

/** The broker address for logs: scheme, host and port, never credentials in the URL. */
export function brokerForLogs(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

export function parseBrokerUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PanicPairError('config', 'the MQTT broker address is not a URL; expected mqtt://host:port or mqtts://host:port');
  }
  if (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') {
    throw new PanicPairError('config', `the MQTT broker address must start with mqtt:// or mqtts://, not ${url.protocol}//`);
  }
  return url;
}
