// Where panic-pair looks for things, shared by the full loader (load.ts) and the light socket
// resolver (paths.ts) so the daemon and the CLI cannot disagree. Nothing here imports a library.
import { dirname, resolve } from 'node:path';

export const DEFAULT_CONFIG_FILE = '/etc/panic-pair/config.json';
export const DEFAULT_STATE_DIR = '/var/lib/panic-pair';
export const CONTROL_SOCKET_NAME = 'panic-pair.sock';
/** What systemd's `RuntimeDirectory=panic-pair` creates; the CLI outside the unit cannot see it. */
export const SYSTEMD_RUNTIME_DIR = '/run/panic-pair';
/** The name of the token under systemd's `LoadCredential=` (in $CREDENTIALS_DIRECTORY). */
export const TOKEN_CREDENTIAL_NAME = 'api-token';
/**
 * The runtime dir's variable, named here for settings.ts to use: the CLI reads it before, and
 * usually instead of, loading the settings table and the config file.
 */
export const RUNTIME_DIR_VARIABLE = 'PANIC_PAIR_RUNTIME_DIR';

/** An empty string (an `Environment=FOO=` line, an empty JSON value) counts as unset. */
export function presentText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** systemd passes `StateDirectory=a b` as `$STATE_DIRECTORY=/var/lib/a:/var/lib/b`. */
export function firstDirectory(list: string | undefined): string | undefined {
  return presentText(list?.split(':')[0]);
}

export function defaultStateDir(stateDirectoryList: string | undefined): string {
  return firstDirectory(stateDirectoryList) ?? DEFAULT_STATE_DIR;
}

/** The runtime dir the flag, else the variable, names; both outrank the config file, so none is read. */
export function namedRuntimeDir(flagValue: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const named = presentText(flagValue) ?? presentText(env[RUNTIME_DIR_VARIABLE]);
  return named === undefined ? undefined : resolve(named);
}

export function defaultRuntimeDir(runtimeDirectoryList: string | undefined, stateDir: string): string {
  return firstDirectory(runtimeDirectoryList) ?? stateDir;
}

/** A relative path in the config file means relative to the file, as an installer reads it. */
export function resolveFromFile(value: string, configFile: string): string {
  return resolve(dirname(configFile), value);
}
