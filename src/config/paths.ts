// The control socket's path, for the client commands (status, devices, pair...). Deliberately
// light: no zod, no env-var, so `panic-pair status` starts quickly on a Raspberry Pi. It follows
// the loader's precedence for runtimeDir and stateDir (flag, variable, config file, systemd's
// directory, default); the tests hold the two to the same answer. When the flag or the variable
// names the runtime dir, namedRuntimeDir (locations.ts) is the whole answer, and a client need not
// load this module and the config-file reader behind it.
import { join, resolve } from 'node:path';
import { locateConfigFile, readConfigFile, type ConfigFile } from './config-file.js';
import {
  CONTROL_SOCKET_NAME,
  defaultRuntimeDir,
  defaultStateDir,
  namedRuntimeDir,
  presentText,
  resolveFromFile,
  SYSTEMD_RUNTIME_DIR,
} from './locations.js';
import { SETTINGS } from './settings.js';

export interface SocketFlags {
  runtimeDir?: string;
  stateDir?: string;
  config?: string;
}

export interface SocketOptions {
  /** The config file looked for when none is named; for tests. */
  defaultConfigFile?: string;
}

export function controlSocketPath(env: NodeJS.ProcessEnv, flags: SocketFlags = {}, options: SocketOptions = {}): string {
  return join(runtimeDirOf(env, flags, options).dir, CONTROL_SOCKET_NAME);
}

/**
 * Where to look for the socket, best first. When nothing names the runtime dir, the daemon under
 * systemd (RuntimeDirectory=panic-pair) listens in /run/panic-pair, which a shell cannot know
 * from its own environment; a client tries that place second.
 */
export function controlSocketCandidates(
  env: NodeJS.ProcessEnv,
  flags: SocketFlags = {},
  options: SocketOptions = {},
): string[] {
  const { dir, named } = runtimeDirOf(env, flags, options);
  const first = join(dir, CONTROL_SOCKET_NAME);
  const systemd = join(SYSTEMD_RUNTIME_DIR, CONTROL_SOCKET_NAME);
  return named || first === systemd ? [first] : [first, systemd];
}

function runtimeDirOf(env: NodeJS.ProcessEnv, flags: SocketFlags, options: SocketOptions): { dir: string; named: boolean } {
  const explicit = namedRuntimeDir(flags.runtimeDir, env);
  if (explicit !== undefined) return { dir: explicit, named: true };
  // Only now is the file worth reading: the common case above costs no file access.
  const location = locateConfigFile(flags.config, env[SETTINGS.config.env], options.defaultConfigFile);
  const file = location === undefined ? undefined : readConfigFile(location);
  const fromFile = fileDir(file, 'runtimeDir');
  if (fromFile !== undefined) return { dir: fromFile, named: true };
  const runtimeDirectory = presentText(env.RUNTIME_DIRECTORY);
  const stateDir =
    presentText(flags.stateDir) ?? presentText(env[SETTINGS.stateDir.env]) ?? fileDir(file, 'stateDir');
  const dir = defaultRuntimeDir(runtimeDirectory, stateDir === undefined ? defaultStateDir(env.STATE_DIRECTORY) : resolve(stateDir));
  return { dir, named: runtimeDirectory !== undefined || stateDir !== undefined };
}

function fileDir(file: ConfigFile | undefined, key: 'runtimeDir' | 'stateDir'): string | undefined {
  const value = presentText(file?.values[key]);
  return file === undefined || value === undefined ? undefined : resolveFromFile(value, file.path);
}
