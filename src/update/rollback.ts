// Going back to the version before: every step can be run again from the start, so a judge killed
// at any instant (or a hub whose power failed) finishes it at its next start, or finds it done.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { rollbackCopyName, schemaVersionOfText, STORE_SCHEMA_VERSION } from '../store/store-versions.js';
import { PREVIOUS_PACKAGE, replaceDurably, syncFolder, type Probation } from './probation-file.js';
import { DAEMON_UNIT, dpkgBusy, monotonicMs, packageSample, unitSample } from './system-facts.js';
import { READY_WITHIN_SECONDS } from './verdict.js';

/** Seconds the rollback waits for apt or dpkg to finish what they are doing before it installs. */
const LOCK_WAIT_SECONDS = 240;
/** The daemon's maintainer scripts skip arming a judge while this is set: going back is no update to judge. */
export const ROLLBACK_ENV = 'PANIC_PAIR_ROLLBACK';

export type Say = (line: string) => void;

/** apt's preference that keeps the failed version off this hub, and only it. */
export function pinFile(version: string): { file: string; text: string } {
  // apt reads only files whose names are letters, digits, '_', '-' and '.' (and a .pref ending).
  const name = `panic-pair-failed-${version.replace(/[^A-Za-z0-9_.-]/g, '_')}.pref`;
  const text = [
    `Explanation: panic-pair ${version} failed its probation on this hub and was rolled back; remove this file to let apt take it again.`,
    'Package: panic-pair',
    `Pin: version ${version}`,
    'Pin-Priority: -1',
  ].join('\n');
  return { file: path.join('/etc/apt/preferences.d', name), text: `${text}\n` };
}

export function rollBack(probation: Probation, say: Say): void {
  const { previous, next } = probation;
  const pin = pinFile(next);
  replaceDurably(pin.file, pin.text, 0o644);
  say(`kept ${next} out of apt: ${pin.file} (Pin-Priority: -1)`);

  if (!installedAt(previous)) {
    if (!existsSync(PREVIOUS_PACKAGE)) throw new Error(`${PREVIOUS_PACKAGE} is missing: ${previous} cannot be installed again`);
    // Stopped first: the failed version must not write the store while it is brought back.
    systemctl('stop', DAEMON_UNIT);
    systemctl('reset-failed', DAEMON_UNIT);
    bringBackStore(probation.stateDir, say);
    waitForDpkg(say);
    install(previous, say);
  }
  // Whatever else apt or an interrupted dpkg left half done: `dpkg --audit` is empty afterwards.
  if (dpkg(['--audit']).stdout.trim() !== '') {
    say('dpkg --audit lists packages left half done: dpkg --configure -a');
    dpkg(['--configure', '-a']);
  }
  if (!installedAt(previous)) throw new Error(`dpkg did not install ${previous}: it says ${JSON.stringify(packageSample())}`);

  // The version before's postinst restarts the daemon; one left failed by the start limit is started here.
  if (unitSample().activeState !== 'active') {
    systemctl('reset-failed', DAEMON_UNIT);
    systemctl('restart', '--no-block', DAEMON_UNIT);
  }
  waitReady(say);
}

function installedAt(version: string): boolean {
  const now = packageSample();
  return now.version === version && now.status.startsWith('ii');
}

function install(previous: string, say: Say): void {
  for (let attempt = 1; ; attempt += 1) {
    say(`installing ${previous} again with dpkg (${PREVIOUS_PACKAGE})`);
    const result = dpkg(['--force-confdef', '--force-confold', '-i', PREVIOUS_PACKAGE]);
    if (result.status === 0) return;
    const why = `${result.stdout}${result.stderr}`.trim().split('\n').slice(-3).join(' | ');
    if (attempt >= 5) throw new Error(`dpkg -i ${PREVIOUS_PACKAGE} failed ${attempt} times; the last: ${why}`);
    say(`dpkg exited ${result.status}: ${why}; again in 5 s`);
    waitForDpkg(say, 5);
  }
}

function waitForDpkg(say: Say, atLeastSeconds = 0): void {
  const until = monotonicMs() + LOCK_WAIT_SECONDS * 1000;
  if (atLeastSeconds > 0) sleep(atLeastSeconds * 1000);
  if (!dpkgBusy()) return;
  say('apt or dpkg is at work: waiting for it to finish');
  while (dpkgBusy() && monotonicMs() < until) sleep(1000);
}

function waitReady(say: Say): void {
  const until = monotonicMs() + READY_WITHIN_SECONDS * 1000;
  for (;;) {
    const unit = unitSample();
    if (unit.activeState === 'active') return;
    if (monotonicMs() >= until) {
      say(`${DAEMON_UNIT} is not ready ${READY_WITHIN_SECONDS} s after going back (${unit.activeState}/${unit.subState}, Result=${unit.result})`);
      return;
    }
    sleep(1000);
  }
}

/**
 * A newer release that raised the store's schemaVersion kept, beside the store, a copy the version
 * before reads (src/store/schema.ts says the rule): put it back in place, the newer file kept aside.
 */
export function bringBackStore(stateDir: string, say: Say): void {
  const file = path.join(stateDir, 'pairings.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const version = schemaVersionOfText(text);
  if (version === undefined || version <= STORE_SCHEMA_VERSION) return;
  const copy = path.join(stateDir, rollbackCopyName(STORE_SCHEMA_VERSION));
  if (!existsSync(copy)) {
    say(`pairings.json has schemaVersion ${version} and no ${path.basename(copy)} beside it: the version before will refuse it`);
    return;
  }
  renameSync(file, path.join(stateDir, `pairings.json.schema-${version}`));
  renameSync(copy, file);
  syncFolder(stateDir);
  say(`the store is back at schemaVersion ${STORE_SCHEMA_VERSION} (${path.basename(copy)}); the schemaVersion ${version} file is kept as pairings.json.schema-${version}`);
}

function dpkg(args: readonly string[]) {
  return spawnSync('dpkg', args, { encoding: 'utf8', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', [ROLLBACK_ENV]: '1' } });
}

function systemctl(...args: string[]): void {
  spawnSync('systemctl', args, { stdio: 'ignore' });
}

export function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
