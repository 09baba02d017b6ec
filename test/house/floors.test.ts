import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/binary.js';

// The house's floors (STYLE.md): daemon/ composes the parts and cli/ words them for a person; no
// part below imports either, by a static import or a lazy one. What several floors share lives on
// the floor of its users (status/, text.ts, device-id.ts).

const SRC = path.join(ROOT, 'src');
const TOP = ['daemon', 'cli'].map((floor) => path.join(SRC, floor) + path.sep);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...[...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms)].map((match) => match[1] as string),
    ...[...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((match) => match[1] as string),
  ];
  return specifiers.map((specifier) => path.resolve(path.dirname(file), specifier));
}

describe('the floors of src/', () => {
  it('no module below daemon/ and cli/ imports from them', () => {
    const upward = sources(SRC)
      .filter((file) => !TOP.some((top) => file.startsWith(top)))
      .flatMap((file) => importsOf(file).filter((target) => TOP.some((top) => target.startsWith(top))).map((target) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`));
    expect(upward).toEqual([]);
  });
});
