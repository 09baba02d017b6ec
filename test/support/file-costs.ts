import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// What each test file cost in a whole run on this project's machine: its import (for a kernel
// suite, its package, image and guest boot), set-up and tests, in seconds. The run's order is made
// from it (file-cost-sequencer.ts): the longest first, so that two workers end together rather
// than one waiting out the other's last long file. A file missing from it runs first, as vitest
// runs files it knows nothing of. `file-cost-reporter.ts` writes it again from a run.

export const FILE_COSTS = path.join(import.meta.dirname, 'file-costs.json');

export type FileCosts = Record<string, number>;

export function readFileCosts(file = FILE_COSTS): FileCosts {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { seconds: FileCosts }).seconds;
  } catch {
    return {};
  }
}

export function writeFileCosts(costs: FileCosts, file = FILE_COSTS): void {
  const sorted = Object.fromEntries(Object.entries(costs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeFileSync(file, `${JSON.stringify({ seconds: sorted }, null, 2)}\n`);
}
