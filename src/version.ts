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
