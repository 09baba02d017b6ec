// Supervision in the words an installer reads (CONTRACT.md section 17): "missing for 2 h 10 min
// (last heard 09:14)", "battery 15 % (low)". Pure, with the time passed in, so the CLI, `status`
// and the page say the same thing.
import type { ButtonLiveness } from './types.js';

/** "45 s", "3 min", "2 h 10 min", "3 d 4 h". */
export function durationWords(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** The hub's local time, "09:14", with the date when it is not within the last 20 hours. */
export function clockWords(wallMs: number, nowWall: number): string {
  const at = new Date(wallMs);
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}`;
  if (nowWall - wallMs < 20 * 3_600_000 && nowWall >= wallMs) return time;
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${time}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** "battery 15 % (low)", "battery 80 %", "battery low", or undefined when nothing is known. */
export function batteryWords(liveness: Pick<ButtonLiveness, 'battery' | 'batteryLow'>): string | undefined {
  if (liveness.battery === null) return liveness.batteryLow ? 'battery low' : undefined;
  return `battery ${liveness.battery} %${liveness.batteryLow ? ' (low)' : ''}`;
}

/** One phrase for the button's supervision: what `devices` and the page show beside its state. */
export function supervisionWords(liveness: ButtonLiveness, nowWall: number): string {
  const heardAt = liveness.lastHeard === null ? undefined : Date.parse(liveness.lastHeard);
  const lastHeard = heardAt === undefined ? 'never heard' : `last heard ${clockWords(heardAt, nowWall)}`;
  switch (liveness.supervision) {
    case 'online':
      return heardAt === undefined ? 'online' : `heard ${durationWords(nowWall - heardAt)} ago`;
    case 'missing':
      return heardAt === undefined ? 'missing (never heard since it was linked)' : `missing for ${durationWords(nowWall - heardAt)} (${lastHeard})`;
    case 'unknown':
      return `not known: no working source has heard it yet (${lastHeard})`;
    case 'unsupervised':
      return 'not supervised: sends only when pressed';
  }
}
