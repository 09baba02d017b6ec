import { configDefaults, defineConfig } from 'vitest/config';
import { FileCostSequencer } from './test/support/file-cost-sequencer.js';

// The kernel tests boot a Debian kernel under qemu's software emulation, where everything runs
// about ten times slower: beside the rest of the suite on two cores, the guest's daemon misses its
// own API deadline. They run as a group of their own, after the rest. The root file systems the
// container and kernel suites boot are built first, by the global setup
// (test/support/roots.global-setup.ts), while the suites that need none run.
const KERNEL_TESTS = 'test/ble-kernel/**/*.test.ts';

export default defineConfig({
  test: {
    // Integration tests start real brokers, daemons and simulators.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // The longest files first, by what each cost in the last measured run (test/support/file-costs.json).
    sequence: { sequencer: FileCostSequencer },
    globalSetup: ['test/support/cpu-use.global-setup.ts', 'test/support/packages.global-setup.ts', 'test/support/roots.global-setup.ts'],
    projects: [
      // Four workers, each keeping its process and its imports from one file to the next: most of
      // these suites wait on real processes and timers, and two workers left the cores a quarter
      // idle while each file spent about 2.4 s importing (docs/engineer/tests.md).
      {
        extends: true,
        test: { name: 'suite', maxWorkers: 4, isolate: false, include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, KERNEL_TESTS] },
      },
      // Two guests run their rows at a time, one for each core: a guest under TCG keeps its core
      // busy. A third file's guest boots meanwhile at the lowest priority, in the time they leave
      // idle, and runs once one of them is done (GUEST_SLOTS, test/support/kernel-guest.ts).
      { extends: true, test: { name: 'kernel', maxWorkers: 3, include: [KERNEL_TESTS], sequence: { groupOrder: 1 } } },
    ],
  },
});
