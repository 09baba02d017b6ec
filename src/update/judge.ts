// The judge of an update, bundled into one file that needs nothing but node (packaging/deb/build.mjs):
//   node judge.mjs arm <new-version>   from the maintainer script of the version being replaced
//   node judge.mjs watch               the unit panic-pair-probation.service
// What it judges, when, on which fact, and what it did goes to its output: the journal, or dpkg's.
import { arm } from './arm.js';
import { watch } from './probation-watch.js';

const say = (line: string): void => void process.stdout.write(`panic-pair update: ${line}\n`);
const [command, version] = process.argv.slice(2);

if (command === 'arm' && version !== undefined && version !== '') {
  try {
    arm(version, process.argv[1] ?? '', say);
  } catch (error) {
    // The upgrade goes on: a hub whose judge could not be armed updates as it did before there was one.
    say(`not judged: ${(error as Error).message}`);
  }
} else if (command === 'watch') {
  watch(say);
} else {
  process.stderr.write('usage: judge.mjs arm <new-version> | watch\n');
  process.exitCode = 2;
}
