import { duration } from '../text.js';
import type { ButtonCounts } from '../supervision/types.js';

// The small words of a fleet's rows: times on the reader's clock, durations, buttons, and text
// from a hub made safe to print (a hostile payload must not drive the operator's terminal).

export const durationWords = duration;

const DAY_MS = 24 * 60 * 60_000;

/** `14:02` on the reader's local clock; with the date when it is not within the last day. */
export function clockTime(at: number, now: number): string {
  const date = new Date(at);
  const hhmm = `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  if (Math.abs(now - at) < DAY_MS) return hhmm;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${hhmm}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** The most of a bad hub id shown. */
const SHOWN_ID_CHARACTERS = 64;

/** A topic level that is not a hub id, quoted, cut to a screen's width. */
export function shownId(hubId: string): string {
  return JSON.stringify(hubId.length > SHOWN_ID_CHARACTERS ? `${hubId.slice(0, SHOWN_ID_CHARACTERS)}...` : hubId);
}

/** `3 buttons, 1 missing, 1 battery low`; `-` for a hub too old to say. */
export function buttonsWords(buttons: ButtonCounts | null): string {
  if (buttons === null) return '-';
  if (buttons.linked === 0) return 'no buttons';
  const parts = [`${buttons.linked} button${buttons.linked === 1 ? '' : 's'}`];
  if (buttons.missing > 0) parts.push(`${buttons.missing} missing`);
  if (buttons.batteryLow > 0) parts.push(`${buttons.batteryLow} battery low`);
  if (buttons.unknown > 0) parts.push(`${buttons.unknown} unknown`);
  if (buttons.unsupervised > 0) parts.push(`${buttons.unsupervised} unsupervised`);
  return parts.join(', ');
}

/** A state as a person reads it: `rolled back` for `rolled-back`. */
export function stateWords(state: string): string {
  return state.replace(/-/g, ' ');
}

/** Control characters (C0, DEL, C1: escape sequences) shown as `?`: text from a hub is outside input. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}
