// Every linked button supervised. Sightings from every source come in on
// the hot path (one map look-up and a few stores); a sweep every few seconds turns silence into
// `missing` only while a source that can hear the button works, and saves the last-heard times at
// most every SAVE_INTERVAL_MS at rest and at once when a button's supervision changes.
import { monotonicNow, wallNow, wallTimeOf, type MonotonicClock, type WallClock } from '../clock.js';
import type { Profile } from '../config/profile.js';
import type { Sighting } from '../sighting.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { DeviceRecord } from '../store/record.js';
import type { HeardSection } from '../store/schema.js';
import { SupervisedButton, type ButtonSettings } from './button.js';
import { GAP_RESOLUTION_MS } from './deadline.js';
import { LatestReports } from './latest-reports.js';
import { savedButton, silenceBeforeRestartMs } from './saved.js';
import { SourceClocks, type SourceUp } from './source-clocks.js';
import type { ButtonCounts, ButtonLiveness, Supervision } from './types.js';
import { batteryWords, supervisionWords } from './words.js';

/** The sweep: a button is missing at most this after its deadline, well inside the minute allowed. */
export const SWEEP_MS = 5_000;
/** Last-heard times are saved at most 4 times an hour at rest: an SD card's wear. */
export const SAVE_INTERVAL_MS = 15 * 60_000;
/** Never a source: a link asked for from the command line. */
const NOT_A_SOURCE = 'cli';

export interface SupervisorOptions {
  on: boolean;
  maxSeconds: number;
  batteryLowPercent: number;
  profiles: readonly Pick<Profile, 'name' | 'supervisionSeconds' | 'triggerOnly'>[];
  sourceUp: SourceUp;
  save(section: HeardSection): Promise<void>;
  /** A keyed button's last counted counter, saved with its heard time. */
  counterOf?(deviceId: string): number | undefined;
  /** Whether a keyed button is `imitated` now; undefined for a button with no key. */
  imitatedOf?(deviceId: string): boolean | undefined;
  logger: Logger;
  clock?: MonotonicClock;
  wallClock?: WallClock;
}

export type LivenessListener = (deviceId: string, liveness: ButtonLiveness) => void;

export class Supervisor {
  readonly #options: SupervisorOptions;
  readonly #clock: MonotonicClock;
  readonly #wall: WallClock;
  readonly #clocks: SourceClocks;
  readonly #buttons = new Map<string, SupervisedButton>();
  readonly #listeners = new Set<LivenessListener>();
  readonly #notYetLinked = new LatestReports();
  #dirty = false;
  #lastSave: number;
  /** The latest save, begun or waiting for the one before it: one at a time. */
  #saving: Promise<void> = Promise.resolve();
  /** A save is asked for and has not yet read the buttons: a further change rides on it. With a
   * thousand buttons heard at once after a start, a save each cost O(n^2) bytes and 350 MB. */
  #savePending = false;
  /** When every button was last told to the outputs after a save ("Last heard"), monotonic. */
  #lastToldAll: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  saves = 0;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#clock = options.clock ?? monotonicNow;
    this.#wall = options.wallClock ?? wallNow;
    this.#clocks = new SourceClocks(options.sourceUp);
    this.#lastSave = this.#clock();
  }

  /** Takes the store's linked buttons under supervision, with what was saved before a restart. */
  load(records: readonly DeviceRecord[], saved: Readonly<HeardSection> | undefined): void {
    const now = this.#clock();
    for (const record of records) {
      if (record.state !== 'linked') continue;
      const kept = saved?.devices[record.deviceId];
      const button = new SupervisedButton(record.deviceId, this.#settingsOf(kept?.profile), now);
      const credit = kept === undefined || saved === undefined ? 0 : silenceBeforeRestartMs(kept, saved);
      for (const source of kept?.sources ?? [record.source]) {
        if (source !== NOT_A_SOURCE) button.expect(source, this.#clocks, now, credit);
      }
      if (kept !== undefined) {
        button.profile = kept.profile;
        button.savedLastHeard = kept.lastHeard;
        if (kept.deadlineSeconds !== undefined) button.savedDeadlineMs = kept.deadlineSeconds * 1000;
        button.battery = kept.battery ?? null;
        button.batteryFlaggedLow = kept.batteryLow === true;
      }
      button.supervision = button.decide(this.#clocks, now);
      this.#buttons.set(record.deviceId, button);
    }
  }

  /** The hot path: every valid sighting from every source. */
  heard(sighting: Sighting): void {
    const button = this.#buttons.get(sighting.deviceId);
    if (sighting.retained === true) return;
    if (button === undefined) {
      this.#notYetLinked.remember(sighting);
      return;
    }
    const at = sighting.at;
    if (button.lastAt === undefined || at > button.lastAt) button.lastAt = at;
    button.learner.report(at, this.#learnable(button, at));
    let hearing = button.sources.get(sighting.source);
    if (hearing === undefined) {
      hearing = { heardAt: at, workedAt: 0, creditMs: 0 };
      button.sources.set(sighting.source, hearing);
    }
    hearing.heardAt = at;
    hearing.workedAt = this.#clocks.heardFrom(sighting.source, at);
    hearing.creditMs = 0;
    this.#dirty = true;
    if (sighting.profile !== undefined && sighting.profile !== button.profile) this.#profileChanged(button, sighting.profile);
    if (sighting.triggerBased === true && !button.triggerBased) {
      button.triggerBased = true;
      button.settings = this.#settingsOf(button.profile, true);
    }
    if (sighting.battery !== undefined || sighting.batteryLow !== undefined) this.#battery(button, sighting);
    if (button.supervision !== 'online' && button.supervision !== 'unsupervised' && this.#decide(button, at)) this.#requestSave();
  }

  /** Whether the gap this report ends is the button's own interval: not when it ends a `missing`
   * (or `unknown`) episode, nor when a source that hears it was down meanwhile. Habluetooth forgets
   * an interval at such a gap and learns it anew; here the deadline stays what it was before. */
  #learnable(button: SupervisedButton, at: number): boolean {
    if (button.supervision === 'missing' || button.supervision === 'unknown') return false;
    const previous = button.learner.previous();
    if (previous === undefined || at - previous < GAP_RESOLUTION_MS) return true;
    for (const source of button.sources.keys()) if (this.#clocks.downAfter(source, previous, at)) return false;
    return true;
  }

  /** A device's state changed in the store: a new link is supervised from now on. A linked
   * device never leaves `linked` but by forget, and a `linking` told late (its listeners hear it a
   * turn after the request left) must not undo a link already heard of. */
  deviceChanged(record: DeviceRecord): void {
    if (record.state !== 'linked' || this.#buttons.has(record.deviceId)) return;
    const now = this.#clock();
    const button = new SupervisedButton(record.deviceId, this.#settingsOf(undefined), now);
    if (record.source !== NOT_A_SOURCE) button.expect(record.source, this.#clocks, now);
    this.#buttons.set(record.deviceId, button);
    // The report that linked it is its first: a freshly paired button shows its battery at once.
    const linking = this.#notYetLinked.take(record.deviceId);
    if (linking === undefined) this.#notify(button);
    else this.heard(linking);
  }

  /** A keyed button's counter changed out of turn (re-paired after a battery change): saved now,
   * so that a restart does not count from the old one. */
  saveSoon(): void {
    this.#requestSave();
  }

  /** Tells the outputs a button's liveness again (its `imitated` changed). */
  retell(deviceId: string): void {
    const button = this.#buttons.get(deviceId);
    if (button !== undefined) this.#notify(button);
  }

  forgotten(deviceId: string): void {
    if (this.#buttons.delete(deviceId)) this.#requestSave();
  }

  onLiveness(listener: LivenessListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Samples the sources, decides every button, and saves when due. */
  sweep(): void {
    const now = this.#clock();
    this.#clocks.sample(now);
    let changed = false;
    const imitatedOf = this.#options.imitatedOf;
    for (const button of this.#buttons.values()) {
      if (this.#decide(button, now)) changed = true;
      // An imitation begun or an hour past: the outputs hear it within a sweep.
      else if (imitatedOf !== undefined && imitatedOf(button.deviceId) !== button.toldImitated) this.#notify(button);
    }
    if (changed || (this.#dirty && now - this.#lastSave >= SAVE_INTERVAL_MS)) this.#requestSave();
  }

  start(): void {
    this.#timer ??= setInterval(() => this.sweep(), SWEEP_MS);
    this.#timer.unref();
  }

  /** Stops the sweep and saves what was heard since the last save. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#dirty) this.#requestSave();
    await this.#saving;
  }

  liveness(deviceId: string): ButtonLiveness | undefined {
    const button = this.#buttons.get(deviceId);
    return button === undefined ? undefined : this.#livenessOf(button);
  }

  counts(): ButtonCounts {
    const counts: ButtonCounts = { linked: 0, online: 0, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 };
    for (const button of this.#buttons.values()) {
      counts.linked++;
      counts[button.supervision]++;
      if (this.#batteryLow(button)) counts.batteryLow++;
    }
    return counts;
  }

  /** The buttons' problems as `status` names them: missing ones, then low batteries. */
  problems(): string[] {
    const nowWall = this.#wall();
    const missing: string[] = [];
    const low: string[] = [];
    for (const button of this.#buttons.values()) {
      // Read every second by the health publisher: only a button with a problem is described.
      if (button.supervision !== 'missing' && !this.#batteryLow(button)) continue;
      const liveness = this.#livenessOf(button);
      // The same words `devices` and the page show for it.
      if (button.supervision === 'missing') missing.push(`button ${button.deviceId} ${supervisionWords(liveness, nowWall)}`);
      if (liveness.batteryLow) low.push(`button ${button.deviceId} ${batteryWords(liveness) ?? 'battery low'}`);
    }
    return [...missing, ...low];
  }

  #decide(button: SupervisedButton, now: number): boolean {
    const next: Supervision = button.decide(this.#clocks, now);
    if (next === button.supervision) return false;
    const before = button.supervision;
    button.supervision = next;
    button.since = now;
    if (next === 'missing') this.#options.logger.warn({ deviceId: button.deviceId, lastHeard: this.#lastHeard(button) ?? null }, 'button missing: not heard within its deadline');
    else if (before === 'missing') this.#options.logger.info({ deviceId: button.deviceId, supervision: next }, 'missing button heard again');
    this.#notify(button);
    return true;
  }

  #battery(button: SupervisedButton, sighting: Sighting): void {
    const wasLow = this.#batteryLow(button);
    const before = button.battery;
    // Sources hand over whole percents; anything else would make every later save refused.
    if (sighting.battery !== undefined && Number.isInteger(sighting.battery) && sighting.battery >= 0 && sighting.battery <= 100) button.battery = sighting.battery;
    if (sighting.batteryLow !== undefined) button.batteryFlaggedLow = sighting.batteryLow;
    if (before !== button.battery || wasLow !== this.#batteryLow(button)) this.#notify(button);
  }

  #batteryLow(button: SupervisedButton): boolean {
    return button.batteryFlaggedLow || (button.battery !== null && button.battery <= this.#options.batteryLowPercent);
  }

  #profileChanged(button: SupervisedButton, profile: string): void {
    button.profile = profile;
    button.settings = this.#settingsOf(profile, button.triggerBased);
  }

  /** `triggerBased`: its BTHome reports say they are sent on presses only (a Shelly BLU Button),
   * so it is unsupervised unless its profile says otherwise (triggerOnly false, or a deadline). */
  #settingsOf(profileName: string | undefined, triggerBased = false): ButtonSettings {
    const profile = profileName === undefined ? undefined : this.#options.profiles.find((p) => p.name === profileName);
    return {
      ceilingMs: this.#options.maxSeconds * 1000,
      triggerOnly: profile?.triggerOnly ?? (triggerBased && profile?.supervisionSeconds === undefined),
      off: !this.#options.on,
      ...(profile?.supervisionSeconds === undefined ? {} : { profileSeconds: profile.supervisionSeconds }),
    };
  }

  #lastHeard(button: SupervisedButton): string | undefined {
    if (button.lastAt === undefined) return button.savedLastHeard;
    return new Date(wallTimeOf(button.lastAt, { monotonic: this.#clock, wall: this.#wall })).toISOString();
  }

  #livenessOf(button: SupervisedButton): ButtonLiveness {
    const unsupervised = button.supervision === 'unsupervised';
    const imitated = this.#options.imitatedOf?.(button.deviceId);
    return {
      lastHeard: this.#lastHeard(button) ?? null,
      battery: button.battery,
      batteryLow: this.#batteryLow(button),
      supervision: button.supervision,
      deadlineSeconds: unsupervised ? null : Math.round(button.deadline().ms / 1000),
      ...(imitated === undefined ? {} : { imitated }),
    };
  }

  #notify(button: SupervisedButton): void {
    button.toldImitated = this.#options.imitatedOf?.(button.deviceId);
    if (this.#listeners.size === 0) return;
    const liveness = this.#livenessOf(button);
    for (const listener of this.#listeners) {
      try {
        listener(button.deviceId, liveness);
      } catch (error) {
        this.#options.logger.error({ err: messageOf(error) }, 'a supervision listener failed');
      }
    }
  }

  #requestSave(): void {
    if (this.#savePending) return;
    this.#savePending = true;
    const previous = this.#saving;
    // A turn later: what asked for the save (a new link) has its retained `linked` state on its
    // way to the broker before the save's encoding and file work begin.
    const nextTurn = new Promise<void>((resolve) => setImmediate(resolve));
    this.#saving = (async () => {
      await previous;
      await nextTurn;
      this.#savePending = false;
      await this.#save();
    })();
  }

  async #save(): Promise<void> {
    const section: HeardSection = { savedAt: new Date(this.#wall()).toISOString(), devices: {} };
    for (const button of this.#buttons.values()) {
      const saved = savedButton(button, this.#lastHeard(button), this.#options.counterOf?.(button.deviceId));
      if (saved !== undefined) section.devices[button.deviceId] = saved;
    }
    this.#dirty = false;
    this.#lastSave = this.#clock();
    try {
      await this.#options.save(section);
      this.saves++;
    } catch (error) {
      // The pairings are untouched by a failed save; the times are tried again at the next sweep.
      this.#dirty = true;
      this.#options.logger.warn({ err: messageOf(error) }, 'could not save when the linked buttons were last heard');
    }
    // Outputs that show "Last heard" follow the saves at rest, not every report, nor every save a
    // burst of changes asks for (each changed button was told already): two retained messages a
    // button, at most every SAVE_INTERVAL_MS.
    const now = this.#clock();
    if (this.#lastToldAll !== undefined && now - this.#lastToldAll < SAVE_INTERVAL_MS) return;
    this.#lastToldAll = now;
    for (const button of this.#buttons.values()) this.#notify(button);
  }
}
