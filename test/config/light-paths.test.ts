// The client commands resolve the socket through paths.ts whenever no flag or variable names the
// runtime dir; on a Raspberry Pi, loading zod or env-var there would cost more than the command itself.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf } from './static-imports.js';

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
