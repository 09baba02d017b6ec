// The judge of an update, bundled into one file that needs nothing but node (packaging/deb/build.mjs):
//   node judge.mjs arm <new-version>   from the maintainer script of the version being replaced
//   node judge.mjs watch               the unit panic-pair-probation.service
//   node judge.mjs disarm              when the package is removed: no watch left to reinstall it
// What it judges, when, on which fact, and what it did goes to its output: the journal, or dpkg's.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { arm } from './arm.js';
import { PROBATION_FILE, WATCH_UNIT, WATCH_UNIT_FILE } from './probation-file.js';
import { disarm, watch } from './probation-watch.js';

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
} else if (command === 'disarm') {
  if (existsSync(WATCH_UNIT_FILE) || existsSync(PROBATION_FILE)) {
    spawnSync('systemctl', ['stop', WATCH_UNIT], { stdio: 'ignore' });
    disarm(say);
  }
} else {
  process.stderr.write('usage: judge.mjs arm <new-version> | watch | disarm\n');
  process.exitCode = 2;
}
