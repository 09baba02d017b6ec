import { defineConfig } from 'vitest/config';

// What `npm run mutate` (stryker.config.mjs) runs against each mutant: the unit tests of the pure
// decision modules it mutates, and nothing that starts a broker, a daemon, a container or a guest.
export default defineConfig({
  test: {
    include: [
      'test/pairing/decisions.test.ts',
      'test/supervision/*.test.ts',
      'test/authentication/*.test.ts',
      'test/store/schema.test.ts',
      'test/store/heard-section.test.ts',
      'test/store/counters-section.test.ts',
      'test/store/reads-forward.test.ts',
      'test/api/replies.test.ts',
      'test/fleet/hub-row.test.ts',
    ],
    pool: 'forks',
    maxWorkers: 1,
  },
});
