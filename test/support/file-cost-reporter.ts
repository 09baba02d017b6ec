import type { Reporter, TestModule } from 'vitest/node';
import { readFileCosts, writeFileCosts } from './file-costs.js';

/**
 * Writes file-costs.json again from a run: `npx vitest run --reporter=default
 * --reporter=./test/support/file-cost-reporter.ts`. A file's cost is its preparation, its import
 * (a kernel suite's boot is there) and its tests; the files this run left out keep theirs.
 */
export default class FileCostReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const costs = readFileCosts();
    for (const module of modules) {
      const { prepareDuration, collectDuration, setupDuration, duration } = module.diagnostic();
      costs[module.relativeModuleId] = Math.round((prepareDuration + collectDuration + setupDuration + duration) / 100) / 10;
    }
    writeFileCosts(costs);
  }
}
