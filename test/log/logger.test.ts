import { describe, expect, it } from 'vitest';
import { prettyInstalled } from '../../src/log/logger.js';

describe('pretty logs in a terminal', () => {
  it('are used where pino-pretty is installed (a development install)', () => {
    expect(prettyInstalled()).toBe(true);
  });

  it('fall back to JSON lines where the install left pino-pretty out', () => {
    const resolve = (name: string): string => {
      throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
    };
    expect(prettyInstalled(resolve)).toBe(false);
  });
});
