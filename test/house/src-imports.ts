import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../support/binary.js';

// The house tests' view of src/: its modules, and which of them each imports.

export const SRC = path.join(ROOT, 'src');

/** Every TypeScript module under `dir`. */
export function sources(dir: string = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/**
 * The src/ files `file` imports (relative specifiers, `.js` written for the `.ts` file): its static
 * imports and re-exports, type ones included, and with `lazy` its `import('...')` calls too.
 */
export function importsOf(file: string, options: { lazy?: boolean } = {}): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...[...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms)].map((match) => match[1] as string),
    ...(options.lazy === true ? [...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((match) => match[1] as string) : []),
  ];
  return specifiers.map((specifier) => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts'));
}
