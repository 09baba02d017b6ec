// The fast CLI commands resolve the socket through paths.ts on every start; on a Raspberry Pi,
// loading zod or env-var there would cost more than the command itself.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

function importsOf(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const [, specifier] of source.matchAll(/^import\s(?!type\s)[^;]*?from\s+'([^']+)'/gms)) {
    if (specifier === undefined) continue;
    if (specifier.startsWith('.')) importsOf(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')), seen);
    else seen.add(specifier);
  }
  return seen;
}

describe('paths.ts', () => {
  it('loads no package, only Node built-ins and its own light modules', () => {
    const entry = fileURLToPath(new URL('../../src/config/paths.ts', import.meta.url));
    const packages = [...importsOf(entry)].filter((name) => !name.startsWith('/') && !name.startsWith('node:'));
    expect(packages).toEqual([]);
    // and the walk did see the modules it shares with the loader
    expect([...importsOf(entry)].some((name) => name.endsWith('config-file.ts'))).toBe(true);
  });

  it('would notice a package import', () => {
    const entry = fileURLToPath(new URL('../../src/config/load.ts', import.meta.url));
    expect([...importsOf(entry)]).toEqual(expect.arrayContaining(['env-var', 'zod']));
  });
});
