import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

// Where the programs and libraries the tests drive are installed: one lookup for the broker, the
// container tools, lintian, libfaketime and mosquitto's plugin.

/** Searched after PATH: sbin is often left out of a user's PATH, and Homebrew puts mosquitto in its own. */
const MORE_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/sbin', '/bin', '/opt/homebrew/sbin'];

/** The path of the executable `name`, or undefined when it is not installed. */
export function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...MORE_DIRS];
  for (const dir of dirs) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * A file Debian installs under /usr/lib or its architecture's /usr/lib/<multiarch>/, e.g.
 * 'faketime/libfaketime.so.1'; undefined when it is in neither.
 */
export function findLibraryFile(relative: string): string | undefined {
  const lib = '/usr/lib';
  const candidates = [path.join(lib, relative)];
  try {
    for (const name of readdirSync(lib)) candidates.push(path.join(lib, name, relative));
  } catch {
    return undefined;
  }
  return candidates.find((file) => existsSync(file));
}
