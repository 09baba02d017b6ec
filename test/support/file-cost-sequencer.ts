import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { readFileCosts } from './file-costs.js';

/**
 * vitest's order (a project's group, then its project), and within a project the files by their
 * cost in the last measured run (file-costs.json), the longest first. vitest's own order knows the
 * durations only from its cache, which a fresh clone has not: there it runs the largest files
 * first, and a run on a new machine ended with one worker booting the armhf guest alone for three
 * minutes while the other had long finished.
 */
export class FileCostSequencer extends BaseSequencer {
  readonly #costs = readFileCosts();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cost = (spec: TestSpecification): number => this.#costs[path.relative(this.ctx.config.root, spec.moduleId)] ?? Number.POSITIVE_INFINITY;
    const ordered = await super.sort(files);
    // A stable sort keeps the base order between files of one cost (the unknown ones above all).
    return ordered.sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      return cost(b) - cost(a);
    });
  }
}
