import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package's version, read from package.json beside src/ and dist/, once: `status` asks at every call. */
export function packageVersion(): string {
  cached ??= readVersion();
  return cached;
}

function readVersion(): string {
  try {
    const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

let builtAt: number | null | undefined;

/**
 * When the package was built (dist/build-time.json, written by the build), in ms since the epoch;
 * undefined when unknown (run from the sources). Read once.
 */
export function buildTime(): number | undefined {
  // null: read, and unknown; `??=` would read the missing file again at every status.
  if (builtAt === undefined) builtAt = readBuildTime();
  return builtAt ?? undefined;
}

function readBuildTime(): number | null {
  try {
    const text = readFileSync(new URL('./build-time.json', import.meta.url), 'utf8');
    const at = Date.parse(String((JSON.parse(text) as { builtAt?: unknown }).builtAt));
    return Number.isNaN(at) ? null : at;
  } catch {
    return null;
  }
}
