// The one rule for every secret file the daemon reads (the API token, the MQTT password, the
// installer code and the page's TLS key): readable and writable by its owner alone, as ssh refuses a loose private key.
// A file that group or others can read is refused with the setting's name and the `chmod` that
// fixes it; `run` exits 2 on it and `check` fails with it.
import { resolve, sep } from 'node:path';
import { readGuardedFile, type ModeGuard } from './file-access.js';
import { Secret } from './secret.js';
import { SETTINGS } from './settings.js';

/** Group and others may neither read nor write a secret file. */
export const SECRET_FILE_FORBIDDEN_BITS = 0o066;
const MAX_SECRET_BYTES = 16 * 1024;

export function secretFileGuard(path: string): ModeGuard {
  return { forbidden: SECRET_FILE_FORBIDDEN_BITS, fix: `chmod 600 ${path}` };
}

/**
 * A credential systemd handed the service (LoadCredential=, in $CREDENTIALS_DIRECTORY): the
 * service's alone whatever its mode bits, which systemd sets (0400 under systemd 252, 0440 under
 * 257), in a directory only the service can see.
 */
export function isSystemdCredential(path: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const dir = env.CREDENTIALS_DIRECTORY?.trim();
  return dir !== undefined && dir !== '' && resolve(path).startsWith(`${resolve(dir)}${sep}`);
}

/**
 * The file's text, refused (a 'config' PanicPairError naming `label`) when it is missing,
 * unreadable, not a regular file, too large, or (unless systemd handed it over) open to group or
 * others.
 */
export function readSecretFile(path: string, label: string, maxBytes = MAX_SECRET_BYTES): string {
  return readGuardedFile(path, label, isSystemdCredential(path) ? undefined : secretFileGuard(path), maxBytes);
}

/** PANIC_PAIR_MQTT_PASSWORD_FILE's content without surrounding whitespace (a trailing newline is the norm). */
export function readMqttPassword(path: string): Secret {
  return new Secret(readSecretFile(path, SETTINGS.mqttPasswordFile.env).trim());
}
