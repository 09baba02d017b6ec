import { readFileSync } from 'node:fs';
import { messageOf } from '../errors.js';

// Read at every connect, not once at start: an installer who rotates the broker password or the
// CA only replaces the file, and the next reconnect uses it. Read synchronously because
// mqtt.js builds the CONNECT packet synchronously right after its `reconnect` event.

export type FileRead = { ok: true; value: Buffer } | { ok: false; reason: string };

export function readCredentialFile(path: string): FileRead {
  try {
    return { ok: true, value: readFileSync(path) };
  } catch (error) {
    return { ok: false, reason: messageOf(error) };
  }
}

/** The password file's content without surrounding whitespace (a trailing newline is the norm). */
export function passwordFrom(content: Buffer): string {
  return content.toString('utf8').trim();
}

/** The broker address for logs: scheme, host and port, never credentials in the URL. */
export function brokerForLogs(url: URL): string {
  return `${url.protocol}//${url.host}`;
}
