import { runBinary, type CliResult } from '../support/binary.js';

// Runs the real, built binary as an installer would, with the daemon's runtime dir pointed at the
// test's own control server. `npm test` builds first; run `npm run build` before vitest alone.

export { assertBuilt, BIN, type CliResult } from '../support/binary.js';

export interface CliOptions {
  runtimeDir: string;
  uid?: number;
  gid?: number;
}

/** Only what the CLI needs: no PANIC_PAIR_* from the developer's shell leaks into a test. */
export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  const { runtimeDir, ...user } = options;
  return runBinary(args, { PATH: process.env.PATH, PANIC_PAIR_RUNTIME_DIR: runtimeDir }, user);
}
