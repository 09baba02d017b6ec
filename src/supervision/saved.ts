// The heard section of the store (src/store/schema.ts) to and from the buttons under supervision.
import type { HeardButton, HeardSection } from '../store/schema.js';
import type { SupervisedButton } from './button.js';

/** What to save of a button, or undefined for one never heard (nothing to keep). */
export function savedButton(button: SupervisedButton, lastHeard: string | undefined, counter?: number): HeardButton | undefined {
  if (lastHeard === undefined) return undefined;
  const deadline = button.deadline();
  const saved: HeardButton = { lastHeard };
  if (button.battery !== null) saved.battery = button.battery;
  if (button.batteryFlaggedLow) saved.batteryLow = true;
  if (deadline.learned) saved.deadlineSeconds = Math.round(deadline.ms / 1000);
  if (button.sources.size > 0) saved.sources = [...button.sources.keys()].slice(0, 16);
  if (button.profile !== undefined) saved.profile = button.profile;
  if (counter !== undefined) saved.counter = counter;
  return saved;
}

/** Silence before the restart that counts: from the last report to the last save, never less than 0. */
export function silenceBeforeRestartMs(saved: HeardButton, section: HeardSection): number {
  const silence = Date.parse(section.savedAt) - Date.parse(saved.lastHeard);
  return Number.isFinite(silence) ? Math.max(0, silence) : 0;
}
