import { spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TARGETS } from '../../scripts/fuzz/targets.mjs';

// Each target run by `npm run fuzz` itself for a moment, Jazzer.js and fast-check alike, so that a
// target that cannot start (a module moved, Jazzer's fuzzer not loading) fails here rather than in
// the next long run: 200 inputs, or a second when fewer come in it. The count ends most targets
// well before the second, and the start is what this checks. The long runs are opt-in:
// docs/engineer/fuzzing.md has their figures.

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

describe('npm run fuzz, 200 inputs a target', () => {
  it.each(TARGETS.map((t) => [t.name]))('%s starts, tries inputs and finds nothing', (name) => {
    const report = path.join(mkdtempSync(path.join(tmpdir(), 'panic-pair-fuzz-report-')), 'report.json');
    const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'fuzz.mjs'), '--target', name, '--seconds', '1', '--runs', '200', '--json', report], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    const [row] = JSON.parse(readFileSync(report, 'utf8')) as Array<{ tried: number; failures: number; problem?: string }>;
    expect(row?.problem ?? '', run.stdout).toBe('');
    expect(row).toMatchObject({ failures: 0 });
    expect(row?.tried).toBeGreaterThan(0);
  });
});
