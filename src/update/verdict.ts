// The judge's decisions over one update, as pure functions of what systemd and dpkg say: fed one
// sample at a time, each answers "go on watching", "kept" or "failed, with the reason and the fact".
// Nothing here asks the daemon about itself: a release that lies about its health cannot pass.
// The runner (probation-watch.ts) samples every second and acts on the answer.

/** A start that has not said READY=1 after this long fails the probation (the unit's TimeoutStartSec is the same). */
export const READY_WITHIN_SECONDS = 150;
/** The stop without being asked that fails the probation: the third. */
export const STOPS_THAT_FAIL = 3;
/** How long dpkg may be idle with the package neither installed at the new version nor back at the old one. */
export const INSTALL_IDLE_SECONDS = 30;
/** `run`'s exit status when it refuses its settings, and when it refuses its store (src/cli/exit-codes.ts). */
export const EXIT_SETTINGS_REFUSED = 2;
export const EXIT_STORE_REFUSED = 65;

/** What `systemctl show panic-pair.service` says at one instant (unit-facts.ts reads it). */
export interface UnitSample {
  /** active, activating, deactivating, reloading, failed, inactive */
  activeState: string;
  subState: string;
  /** systemd's Result: success, exit-code, signal, core-dump, watchdog, timeout, start-limit-hit, ... */
  result: string;
  /** Restarts by Restart= since the unit was last started by hand. */
  restarts: number;
  invocationId: string;
  /** How the main process ended: 1 exited, 2 killed, 3 dumped core (0 while none did). */
  mainCode: number;
  /** Its exit status, or the signal's number. */
  mainStatus: number;
  /** When the current start began (InactiveExitTimestampMonotonic), in ms of CLOCK_MONOTONIC; 0 when never. */
  startedAtMs: number;
  /** CLOCK_MONOTONIC at the sample, in ms: the same clock as startedAtMs. */
  nowMs: number;
}

/**
 * What the judge remembers between samples (saved with the probation, so a restarted judge goes on).
 * A stop is counted from two facts, the larger winning: each invocation seen ended without being
 * asked (the moment it ends, as systemd shows it waiting to restart it), and NRestarts' growth, for
 * the stops no sample saw (a start that dies within a second, the start limit's last).
 */
export interface StopCount {
  stops: number;
  /** Invocations seen ended without being asked. */
  ended: number;
  /** NRestarts' growth since the probation began, across restarts by hand (which set it back to 0). */
  restarts: number;
  /** NRestarts at the last sample. */
  lastRestarts: number;
  /** The last invocations counted in `ended`, so none is counted twice. */
  seen: string[];
}

export type Verdict =
  | { kind: 'watching'; count: StopCount }
  | { kind: 'kept'; fact: string }
  | { kind: 'failed'; reason: string; fact: string };

export function freshCount(sample: Pick<UnitSample, 'restarts'>): StopCount {
  return { stops: 0, ended: 0, restarts: 0, lastRestarts: sample.restarts, seen: [] };
}

/** How the main process ended, in systemd's words. */
export function howItEnded(sample: Pick<UnitSample, 'result' | 'mainCode' | 'mainStatus'>): string {
  const ending = sample.mainCode === 1 ? `exit status ${sample.mainStatus}` : sample.mainCode === 2 ? `signal ${sample.mainStatus}` : sample.mainCode === 3 ? `core dump, signal ${sample.mainStatus}` : 'no exit yet';
  return `Result=${sample.result}, ${ending}`;
}

/**
 * One sample of a probation that began at `probationStartMs` (CLOCK_MONOTONIC) and lasts
 * `probationSeconds`. The refusals come first: a release that refuses the settings or the store the
 * version before ran with fails at once, whatever else the sample says.
 */
export function judgeSample(count: StopCount, sample: UnitSample, probationStartMs: number, probationSeconds: number): Verdict {
  const running = sample.activeState === 'active' || sample.activeState === 'reloading';
  if (!running && sample.mainCode === 1 && sample.mainStatus === EXIT_SETTINGS_REFUSED) {
    return { kind: 'failed', reason: 'refused the settings the version before ran with', fact: howItEnded(sample) };
  }
  if (!running && sample.mainCode === 1 && sample.mainStatus === EXIT_STORE_REFUSED) {
    return { kind: 'failed', reason: 'refused the store the version before wrote', fact: howItEnded(sample) };
  }
  if (sample.result === 'timeout') {
    return { kind: 'failed', reason: `not ready within ${READY_WITHIN_SECONDS} s`, fact: howItEnded(sample) };
  }
  const slow = notReadyInTime(sample);
  if (slow !== undefined) return slow;

  const next = countStops(count, sample);
  if (next.stops >= STOPS_THAT_FAIL) {
    return { kind: 'failed', reason: `stopped ${STOPS_THAT_FAIL} times without being asked`, fact: `${next.stops} stops, NRestarts=${sample.restarts}, the last: ${howItEnded(sample)}` };
  }
  if (gaveUp(sample)) {
    return { kind: 'failed', reason: 'stopped without being asked, and systemd gave up restarting it', fact: howItEnded(sample) };
  }
  if (sample.nowMs - probationStartMs >= probationSeconds * 1000) {
    if (running) return { kind: 'kept', fact: `active after ${probationSeconds} s, ${next.stops} stops without being asked` };
    // Stopped by hand (a clean stop is never restarted): nothing held against it.
    if (sample.activeState === 'inactive' && sample.subState === 'dead' && sample.result === 'success') return { kind: 'kept', fact: `stopped by hand, ${next.stops} stops without being asked` };
  }
  return { kind: 'watching', count: next };
}

/**
 * Failed for good: systemd will not start it again by itself. systemd 254 and later also show
 * `failed` for a moment before each restart (SubState failed-before-auto-restart): that stop is
 * counted by NRestarts once the restart is scheduled, not here.
 */
function gaveUp(sample: UnitSample): boolean {
  return sample.activeState === 'failed' && sample.subState === 'failed';
}

/**
 * A start that has gone on for 150 s without READY=1. Asked while dpkg is still configuring the new
 * version too: its postinst waits for the restart it asked for, so a release whose unit never times
 * out its start would otherwise hold dpkg, and its own judgement, for ever.
 */
export function notReadyInTime(sample: UnitSample): Extract<Verdict, { kind: 'failed' }> | undefined {
  const starting = sample.activeState === 'activating' && sample.subState === 'start';
  if (!starting || sample.startedAtMs <= 0 || sample.nowMs - sample.startedAtMs < READY_WITHIN_SECONDS * 1000) return undefined;
  return { kind: 'failed', reason: `not ready within ${READY_WITHIN_SECONDS} s`, fact: `activating for ${Math.round((sample.nowMs - sample.startedAtMs) / 1000)} s without READY=1` };
}

/** The unit's current invocation has ended, not asked to: waiting to be restarted, or failed for good. */
function endedUnasked(sample: UnitSample): boolean {
  if (sample.result === 'success' || sample.invocationId === '') return false;
  return sample.activeState === 'failed' || sample.subState.startsWith('auto-restart');
}

function countStops(count: StopCount, sample: UnitSample): StopCount {
  const grown = sample.restarts >= count.lastRestarts ? sample.restarts - count.lastRestarts : sample.restarts;
  const newlyEnded = endedUnasked(sample) && !count.seen.includes(sample.invocationId);
  if (grown === 0 && !newlyEnded && sample.restarts === count.lastRestarts) return count;
  const ended = count.ended + (newlyEnded ? 1 : 0);
  const restarts = count.restarts + grown;
  return {
    stops: Math.max(ended, restarts, count.stops),
    ended,
    restarts,
    lastRestarts: sample.restarts,
    seen: newlyEnded ? [...count.seen, sample.invocationId].slice(-8) : count.seen,
  };
}

/** What dpkg says of the package: `dpkg-query -W -f '${Version}\t${db:Status-Abbrev}'`. */
export interface PackageSample {
  /** Empty when the package is not known. */
  version: string;
  /** dpkg's three letters: `ii ` installed, `iU ` unpacked, `iF ` half-configured, `iH ` half-installed, ... */
  status: string;
  /** dpkg's or apt's lock held: something is installing. */
  busy: boolean;
  nowMs: number;
}

export type InstallVerdict = { kind: 'installing'; idleSinceMs: number | undefined } | { kind: 'installed' } | { kind: 'undone' } | { kind: 'failed'; reason: string; fact: string };

/**
 * While the new version is being installed: done once dpkg says it is installed; undone when dpkg
 * went back to the version before by itself (an upgrade whose new scripts failed); failed when
 * nothing installs and the package is left between versions.
 */
export function judgeInstall(sample: PackageSample, plan: { previous: string; next: string }, idleSinceMs: number | undefined): InstallVerdict {
  const installed = sample.status.startsWith('ii');
  if (installed && sample.version === plan.next) return { kind: 'installed' };
  if (sample.busy) return { kind: 'installing', idleSinceMs: undefined };
  if (installed && sample.version === plan.previous) return { kind: 'undone' };
  const since = idleSinceMs ?? sample.nowMs;
  if (sample.nowMs - since >= INSTALL_IDLE_SECONDS * 1000) {
    const left = sample.version === '' ? 'not installed' : `${sample.version} with dpkg status "${sample.status.trim()}"`;
    return { kind: 'failed', reason: 'the update did not install', fact: `dpkg idle for ${INSTALL_IDLE_SECONDS} s with the package ${left}` };
  }
  return { kind: 'installing', idleSinceMs: since };
}
