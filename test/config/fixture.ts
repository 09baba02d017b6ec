// Temporary files for the configuration tests: each test file works in its own directory and
// passes the environment explicitly, so nothing on the machine running the tests leaks in.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { PanicPairError } from '../../src/errors.js';
import { loadConfig, type LoadOptions } from '../../src/config/index.js';

export class Scratch {
  readonly dir = mkdtempSync(join(tmpdir(), 'panic-pair-config-'));
  /** Stands in for /etc/panic-pair/config.json, which the tests must not depend on. */
  readonly absentDefault = join(this.dir, 'absent-default.json');

  file(name: string, content: string, mode = 0o600): string {
    const path = join(this.dir, name);
    writeFileSync(path, content);
    chmodSync(path, mode); // explicit: the umask must not decide
    return path;
  }

  config(values: unknown, name = 'config.json', mode = 0o644): string {
    return this.file(name, JSON.stringify(values, null, 2), mode);
  }

  load(options: LoadOptions = {}) {
    return loadConfig({ env: {}, defaultConfigFile: this.absentDefault, ...options });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The configuration error `run` throws; fails the test when it does not throw one. */
export function configError(run: () => unknown): PanicPairError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PanicPairError);
    expect((error as PanicPairError).kind).toBe('config');
    return error as PanicPairError;
  }
  expect.fail('expected a configuration error');
}
