import { readFileSync } from 'node:fs';

/** The package's version, read from package.json beside src/ and dist/. */
export function packageVersion(): string {
  try {
    const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}
