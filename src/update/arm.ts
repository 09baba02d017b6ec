// Arming the watch, from the maintainer script of the version being replaced (`prerm upgrade`),
// before dpkg unpacks a single file of the new one: the judge's code, the version before as a
// package and the unit that runs the watch are all in place, and none of them comes from the release
// being judged.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hubSettings } from './hub-settings.js';
import { readOutcomeFile } from './outcome.js';
import { JUDGE_FILE, PREVIOUS_PACKAGE, readProbation, replaceDurably, saveProbation, UPDATE_DIR, WATCH_UNIT, WATCH_UNIT_FILE } from './probation-file.js';
import { probationOutcome } from './probation-watch.js';
import { repackInstalled } from './repack.js';
import { ROLLBACK_ENV, type Say } from './rollback.js';
import { DAEMON_UNIT, packageSample, properties } from './system-facts.js';

export function watchUnit(): string {
  return [
    '# Written by panic-pair when it was upgraded: the watch over the new version on probation.',
    '# It removes itself once the version is kept or rolled back.',
    '[Unit]',
    'Description=panic-pair: the watch over an update on probation',
    'Documentation=man:panic-pair(1)',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=/usr/bin/node ${JUDGE_FILE} watch`,
    // Killed (or its hub's power cut) in the middle of a rollback, it starts again and finishes it.
    'Restart=on-failure',
    'RestartSec=5s',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/**
 * Arms the watch over the upgrade to `next`, or says why not. Never throws for a reason of the
 * hub's: the upgrade goes on regardless, as it did before there was a judge.
 */
export function arm(next: string, judgeFile: string, say: Say): void {
  if (process.env[ROLLBACK_ENV] === '1') return; // the judge itself is installing the version before
  if (process.env.DPKG_ROOT !== undefined && process.env.DPKG_ROOT !== '') return say('not judged: installing into another root');
  if (!isSystemd()) return say('not judged: systemd is not running');
  const previous = packageSample().version;
  if (previous === '' || previous === next) return;
  const standing = standingProbation();
  if (standing?.phase === 'rolling-back') return say(`not judged: a rollback to ${standing.previous} is under way`);
  const daemon = properties(DAEMON_UNIT, ['ActiveState']).ActiveState;
  // The version before must have run for its successor to be held to it; a hub still unconfigured,
  // or already failing, would roll back for its own trouble.
  if (daemon !== 'active') return say(`not judged: the daemon was ${daemon ?? 'unknown'} before the update, so there is nothing to compare ${next} with`);

  const settings = hubSettings();
  const started = performance.now();
  // A watch still judging the version being replaced gives way, before it could clear what follows.
  if (existsSync(WATCH_UNIT_FILE)) spawnSync('systemctl', ['stop', WATCH_UNIT], { stdio: 'ignore' });
  mkdirSync(UPDATE_DIR, { recursive: true, mode: 0o700 });
  replaceDurably(JUDGE_FILE, readFileSync(judgeFile), 0o600);
  const repacked = repackInstalled(PREVIOUS_PACKAGE);
  const before = readOutcomeFile(settings.stateDir);
  saveProbation({ phase: 'installing', previous: repacked || previous, next, probationSeconds: settings.probationSeconds, stateDir: settings.stateDir, armedAt: new Date().toISOString(), before });
  probationOutcome(settings.stateDir, previous, next, before);
  replaceDurably(WATCH_UNIT_FILE, watchUnit(), 0o644);
  for (const args of [['daemon-reload'], ['enable', WATCH_UNIT], ['restart', '--no-block', WATCH_UNIT]]) spawnSync('systemctl', args, { stdio: 'ignore' });
  say(`${next} will be on probation for ${settings.probationSeconds} s; ${previous} is kept to go back to (${PREVIOUS_PACKAGE}, made in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

/** The probation under way; one the judge cannot read is replaced by the new one. */
function standingProbation(): ReturnType<typeof readProbation> {
  try {
    return readProbation();
  } catch {
    return undefined;
  }
}

/** What deb-systemd-invoke asks too: systemd is the running init. */
function isSystemd(): boolean {
  return existsSync('/run/systemd/system');
}
