import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { TARGETS } from '../../scripts/fuzz/targets.mjs';

// Every input a fuzz target ever failed on, kept in test/fuzz/<target>/, and every target's seeds,
// replayed through the target as `npm run fuzz` runs it; and each property checked
// for a few hundred runs. Targets load the built code (dist/): `npm test` builds first.

interface ByteTarget {
  fuzz(data: Buffer): void | Promise<void>;
  seeds(): Buffer[];
}
interface PropertyTarget {
  arbitraries: Array<fc.Arbitrary<unknown>>;
  predicate(...values: unknown[]): boolean | Promise<boolean>;
}

const here = path.dirname(new URL(import.meta.url).pathname);
const kept = (name: string): string[] => {
  try {
    return readdirSync(path.join(here, name)).filter((file) => !file.startsWith('.'));
  } catch {
    return [];
  }
};

describe.each(TARGETS.filter((t) => t.kind === 'jazzer').map((t) => [t.name]))('%s', (name) => {
  it('takes its seeds and every kept input without a finding', async () => {
    const target = (await import(`./targets/${name}.mjs`)) as ByteTarget;
    for (const seed of target.seeds()) await target.fuzz(seed);
    for (const file of kept(name)) {
      await expect(Promise.resolve().then(() => target.fuzz(readFileSync(path.join(here, name, file)))), `test/fuzz/${name}/${file}`).resolves.toBeUndefined();
    }
  });
});

// A counterexample fast-check found is kept as JSON (scripts/fuzz/check-property.mjs).
function revive(text: string): unknown[] {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value === '__undefined__') return undefined;
    if (typeof value === 'object' && value !== null && 'buffer' in value) return Buffer.from(String((value as { buffer: string }).buffer), 'base64');
    return value;
  }) as unknown[];
}

for (const { name } of TARGETS.filter((t) => t.kind === 'property')) {
  describe(name, async () => {
    const target = (await import(`./properties/${name}.mjs`)) as PropertyTarget;
    test.prop(target.arbitraries as [fc.Arbitrary<unknown>], { numRuns: name === 'api-client' ? 25 : 300 })('holds for generated values', async (...values) => {
      expect(await target.predicate(...values)).toBe(true);
    });
    it.each(kept(name).map((file) => [file]))('holds for the kept %s', async (file) => {
      expect(await target.predicate(...revive(readFileSync(path.join(here, name, file), 'utf8')))).toBe(true);
    });
  });
}
