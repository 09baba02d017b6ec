import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

// What loading a source file loads before any of its code runs: the modules it imports or
// re-exports without `await import()`, followed through the project's own files. Type-only imports
// cost nothing.

export function importsOf(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const [, specifier] of source.matchAll(/^(?:import|export)\s(?!type\s)(?:[^;']*?from\s+)?'([^']+)'/gms)) {
    if (specifier === undefined) continue;
    if (specifier.startsWith('.')) importsOf(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')), seen);
    else seen.add(specifier);
  }
  return seen;
}
