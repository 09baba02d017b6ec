import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sources, SRC } from './src-imports.js';

// The house's floors (STYLE.md): daemon/ composes the parts and cli/ words them for a person; no
// part below imports either, by a static import or a lazy one. What several floors share lives on
// the floor of its users (status/, text.ts, device-id.ts).

const TOP = ['daemon', 'cli'].map((floor) => path.join(SRC, floor) + path.sep);

describe('the floors of src/', () => {
  it('no module below daemon/ and cli/ imports from them', () => {
    const upward = sources()
      .filter((file) => !TOP.some((top) => file.startsWith(top)))
      .flatMap((file) => importsOf(file, { lazy: true }).filter((target) => TOP.some((top) => target.startsWith(top))).map((target) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`));
    expect(upward).toEqual([]);
  });
});
