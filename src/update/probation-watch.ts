// The watch over one update, as the unit panic-pair-probation.service runs it: wait for dpkg to
// install the new version, judge its probation one sample a second, then keep it or go back.
// Every change of phase is saved before it is acted on, so a judge restarted (by systemd, or at the
// next boot) goes on from where it was.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { restoreOutcome, standingRollback, writeOutcome } from './outcome.js';
import { readProbation, saveProbation, UPDATE_DIR, WATCH_UNIT, WATCH_UNIT_FILE, type Probation } from './probation-file.js';
import { rollBack, sleep, type Say } from './rollback.js';
import { bootId, monotonicMs, packageSample, unitSample } from './system-facts.js';
import { freshCount, howItEnded, judgeInstall, judgeSample, notReadyInTime, STOPS_THAT_FAIL } from './verdict.js';

const SAMPLE_MS = 1000;

export function watch(say: Say): void {
  let idleSinceMs: number | undefined;
  for (;;) {
    let probation: Probation | undefined;
    try {
      probation = readProbation();
    } catch (error) {
      // Not the judge's own writing (replaced whole, never torn): nothing it can act on.
      say(`${(error as Error).message}: the watch ends without judging`);
      return disarm(say);
    }
    if (probation === undefined) {
      say('no update on probation');
      return disarm(say);
    }
    if (probation.phase === 'installing') {
      const installing = packageSample();
      const verdict = judgeInstall(installing, probation, idleSinceMs);
      // The new files are in and their postinst waits on a start that does not end.
      const stuck = installing.version === probation.next ? notReadyInTime(unitSample()) : undefined;
      if (stuck !== undefined) return fail(probation, stuck.reason, stuck.fact, say);
      if (verdict.kind === 'installing') idleSinceMs = verdict.idleSinceMs;
      else if (verdict.kind === 'undone') {
        say(`dpkg went back to ${probation.previous} by itself: nothing to judge`);
        restoreOutcome(probation.stateDir, probation.before);
        return disarm(say);
      } else if (verdict.kind === 'installed') {
        const unit = unitSample();
        saveProbation({ ...probation, phase: 'probation', bootId: bootId(), startMs: unit.nowMs, count: freshCount(unit) });
        say(`${probation.next} is installed: on probation for ${probation.probationSeconds} s, ${probation.previous} kept to go back to`);
      } else return fail(probation, verdict.reason, verdict.fact, say);
    } else if (probation.phase === 'probation') {
      if (probation.bootId !== bootId() || probation.startMs === undefined || probation.count === undefined) {
        const unit = unitSample();
        saveProbation({ ...probation, bootId: bootId(), startMs: unit.nowMs, count: freshCount(unit) });
        say(`a new boot: ${probation.next}'s probation of ${probation.probationSeconds} s starts again`);
      } else {
        const sample = unitSample();
        const verdict = judgeSample(probation.count, sample, probation.startMs, probation.probationSeconds);
        if (verdict.kind === 'kept') return keep(probation, verdict.fact, say);
        if (verdict.kind === 'failed') return fail(probation, verdict.reason, verdict.fact, say);
        if (verdict.count.stops !== probation.count.stops) {
          say(`judged: ${probation.next} stopped without being asked, ${verdict.count.stops} of ${STOPS_THAT_FAIL} (NRestarts=${sample.restarts}, ${howItEnded(sample)})`);
        }
        if (verdict.count !== probation.count) saveProbation({ ...probation, count: verdict.count });
      }
    } else return goBack(probation, say);
    sleep(SAMPLE_MS);
  }
}

function keep(probation: Probation, fact: string, say: Say): void {
  say(`judged: ${probation.next} passed its probation (${fact}); kept`);
  writeOutcome(probation.stateDir, { state: 'kept', version: probation.next, previous: probation.previous, reason: null, at: new Date().toISOString() });
  disarm(say);
}

function fail(probation: Probation, reason: string, fact: string, say: Say): void {
  say(`judged: ${probation.next} failed its probation: ${reason} (${fact}); going back to ${probation.previous}`);
  const failing: Probation = { ...probation, phase: 'rolling-back', reason, fact, failedAtMs: monotonicMs(), bootId: bootId() };
  saveProbation(failing);
  goBack(failing, say);
}

function goBack(probation: Probation, say: Say): void {
  rollBack(probation, say);
  const reason = probation.reason ?? 'failed its probation';
  const outcome = { state: 'rolled-back', version: probation.next, previous: probation.previous, reason, at: new Date().toISOString() } as const;
  writeOutcome(probation.stateDir, { ...outcome, rolledBack: outcome });
  const took = probation.failedAtMs !== undefined && probation.bootId === bootId() ? `${Math.round((monotonicMs() - probation.failedAtMs) / 1000)} s after the failure` : 'after a restart of the hub';
  say(`rolled back: ${probation.previous} runs again, ready, ${took}; ${probation.next} failed: ${reason}`);
  disarm(say);
}

/** The watch is over: its unit and files go, so nothing of it runs at the next boot. */
export function disarm(say: Say): void {
  spawnSync('systemctl', ['disable', WATCH_UNIT], { stdio: 'ignore' });
  rmSync(WATCH_UNIT_FILE, { force: true });
  spawnSync('systemctl', ['daemon-reload'], { stdio: 'ignore' });
  // All of it the watch's own: the copy of the version before, the probation, the judge.
  rmSync(UPDATE_DIR, { recursive: true, force: true });
  say('the watch is over');
}

/** update.json while `next` is on probation: the last rollback goes on being said. */
export function probationOutcome(stateDir: string, previous: string, next: string, before: unknown): void {
  const rolledBack = standingRollback(before);
  writeOutcome(stateDir, { state: 'probation', version: next, previous, reason: null, at: new Date().toISOString(), ...(rolledBack === undefined ? {} : { rolledBack }) });
}
