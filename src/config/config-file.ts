// Finding and reading the JSON config file. Shared by the full loader and the light socket
// resolver; checking the keys and values is the loader's job.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { PanicPairError } from '../errors.js';
import { readGuardedFile } from './file-access.js';
import { DEFAULT_CONFIG_FILE, presentText } from './locations.js';
import { SETTINGS } from './settings.js';

export interface ConfigFileLocation {
  readonly path: string;
  /** The setting the path came from, for messages: "PANIC_PAIR_CONFIG (--config)", "config file". */
  readonly label: string;
}

export interface ConfigFile {
  readonly path: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/** The flag, else the variable, else the default file only if it exists; undefined: no file. */
export function locateConfigFile(
  flagValue: unknown,
  envValue: string | undefined,
  defaultFile: string = DEFAULT_CONFIG_FILE,
): ConfigFileLocation | undefined {
  const { env, flag, form } = SETTINGS.config;
  if (flagValue !== undefined && typeof flagValue !== 'string') {
    throw new PanicPairError('config', `${env} (${flag}) must be ${form}; got ${JSON.stringify(flagValue)}`);
  }
  const fromFlag = presentText(flagValue);
  if (fromFlag !== undefined) return { path: resolve(fromFlag), label: `${env} (${flag})` };
  const fromEnv = presentText(envValue);
  if (fromEnv !== undefined) return { path: resolve(fromEnv), label: env };
  return exists(defaultFile) ? { path: defaultFile, label: 'config file' } : undefined;
}

// Only a missing default file means "no file": one this user may not read is reported, not skipped,
// or the CLI would silently resolve other paths than the daemon.
function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

export function readConfigFile(location: ConfigFileLocation): ConfigFile {
  const { path, label } = location;
  // Whoever can change this file can point the daemon at another API or token.
  const text = readGuardedFile(path, label, { forbidden: 0o022, fix: `chmod 644 ${path} (or tighter)` });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PanicPairError('config', `${label} ${path} is not valid JSON: ${syntaxProblem(error, text)}`, {
      cause: error,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const got = Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed;
    throw new PanicPairError('config', `${label} ${path} must hold a JSON object ({"customerId": 42, ...}); got ${got}`);
  }
  return { path, values: parsed as Record<string, unknown> };
}

// V8's message may quote the text around the error; the file may hold a broker address with a
// password in it, so keep only the reason and turn the position into a line and column.
function syntaxProblem(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const reason = message.split(/, "|\s+in JSON at position|\s+\(line \d/)[0] ?? 'syntax error';
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined) return reason;
  const before = text.slice(0, Number(position)).split('\n');
  return `${reason} at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}
