import { configDefaults, defineConfig } from 'vitest/config';

// The kernel tests boot a Debian kernel under qemu's software emulation, where everything runs
// about ten times slower: beside the rest of the suite on two cores, the guest's daemon misses its
// own API deadline. They run as a group of their own, after the rest. The root file systems the
// container and kernel suites boot are built first, by the global setup
// (test/support/roots.global-setup.ts), while the suites that need none run.
const KERNEL_TESTS = 'test/ble-kernel/**/*.test.ts';

export default defineConfig({
  test: {
    // Integration tests start real brokers, daemons and simulators; two cores run them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/support/cpu-use.global-setup.ts', 'test/support/packages.global-setup.ts', 'test/support/roots.global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, KERNEL_TESTS] } },
      { extends: true, test: { name: 'kernel', include: [KERNEL_TESTS], sequence: { groupOrder: 1 } } },
    ],
  },
});
