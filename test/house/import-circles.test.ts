import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/binary.js';
import { importsOf, sources, SRC } from './src-imports.js';

// One direction of flow (docs/engineer/architecture.md): no module of src/ imports, through any chain, one that imports
// it back. Type imports count too: whoever defines a type owns it, and the other imports it.

/** Each circle once, as the files in it, starting from its first in sorted order. */
function circles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>();
  const visit = (file: string, trail: string[]): void => {
    const at = trail.indexOf(file);
    if (at >= 0) {
      const circle = trail.slice(at);
      const first = circle.indexOf([...circle].sort()[0] as string);
      const turned = [...circle.slice(first), ...circle.slice(0, first)];
      found.set(turned.join(' -> '), turned);
      return;
    }
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    if (trail.length === 0) done.add(file);
  };
  const done = new Set<string>();
  for (const file of [...graph.keys()].sort()) visit(file, []);
  return [...found.values()];
}

describe('the source tree', () => {
  it('has no import circles', () => {
    const graph = new Map(sources(SRC).map((file) => [file, importsOf(file)]));
    const named = circles(graph).map((circle) => circle.map((file) => path.relative(ROOT, file)).join(' -> '));
    expect(named).toEqual([]);
  });
});
