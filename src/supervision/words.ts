// Supervision in the words an installer reads: "heard 3 min ago",
// "missing for 2 h 10 min (last heard 09:14)", "battery 15 % (low)". Pure, with the time passed
// in, so `devices`, `status` and the page say the same thing the same way; clock times are the
// hub's local time (the installer on site reads the hub's clock, not UTC).
import type { ButtonLiveness, DeviceRow } from './types.js';

/** Below this a button was heard "just now": a second's count would change at every look. */
const JUST_NOW_MS = 5_000;

export interface SupervisionContext {
  /** False when no source that could hear the button works now (adapter not scanning, broker away). */
  hearing?: boolean;
  /** PANIC_PAIR_SUPERVISION=off: every button is unsupervised because the hub supervises none. */
  supervisionOff?: boolean;
}

export interface LivenessWords {
  /** "heard 3 min ago", "missing for 2 h 10 min (last heard 09:14)", "not supervised: ...". */
  heard: string;
  /** "battery 15 %", "battery 15 % (low)", "battery low"; absent when no report carried one. */
  battery?: string;
  /** Missing or battery low: a problem of the button, to be shown as one (in words, not colour alone). */
  problem: boolean;
}

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

/**
 * What the hub's status says that the words need. Hearing: when neither the radio scans nor the
 * broker is connected, no source can hear any button; otherwise which source hears which button
 * is the supervisor's to know, and nothing is claimed. `supervision` (`on`/`off`), where a status
 * carries it, tells "supervision is off" from a button that sends only when pressed.
 */
export function statusContext(states: { ble: string; mqtt: string; supervision?: string }): SupervisionContext {
  return {
    ...(states.ble === 'scanning' || states.mqtt === 'connected' ? {} : { hearing: false }),
    ...(states.supervision === 'off' ? { supervisionOff: true } : {}),
  };
}

/** One phrase for the button's supervision: what `devices` and the page show beside its state. */
export function supervisionWords(liveness: Pick<ButtonLiveness, 'supervision' | 'lastHeard'>, nowWall: number, context: SupervisionContext = {}): string {
  const parsed = liveness.lastHeard === null ? Number.NaN : Date.parse(liveness.lastHeard);
  const heardAt = Number.isNaN(parsed) ? undefined : parsed;
  const lastHeard = heardAt === undefined ? '' : ` (last heard ${clockWords(heardAt, nowWall)})`;
  switch (liveness.supervision) {
    case 'online':
      if (heardAt === undefined) return 'online';
      // A wall clock set back puts the report "in the future": still just now.
      return nowWall - heardAt < JUST_NOW_MS ? 'heard just now' : `heard ${durationWords(nowWall - heardAt)} ago`;
    case 'missing':
      return heardAt === undefined ? 'missing (never heard since it was linked)' : `missing for ${durationWords(nowWall - heardAt)}${lastHeard}`;
    case 'unknown':
      if (context.hearing === false) return `unknown: no working source can hear it${lastHeard}`;
      return `unknown: not heard yet since it was linked or the hub started${lastHeard}`;
    case 'unsupervised':
      return `${context.supervisionOff ? 'not supervised: supervision is off' : 'not supervised: sends only when pressed'}${lastHeard}`;
  }
}

export function livenessWords(liveness: ButtonLiveness, nowWall: number, context: SupervisionContext = {}): LivenessWords {
  const battery = batteryWords(liveness);
  return {
    heard: supervisionWords(liveness, nowWall, context),
    ...(battery === undefined ? {} : { battery }),
    problem: liveness.supervision === 'missing' || liveness.batteryLow,
  };
}

/** A row's liveness when the daemon gave one (a linked device of a daemon that supervises). */
export function livenessOf(row: DeviceRow): ButtonLiveness | undefined {
  if (row.supervision === undefined) return undefined;
  return {
    supervision: row.supervision,
    lastHeard: row.lastHeard ?? null,
    battery: row.battery ?? null,
    batteryLow: row.batteryLow ?? false,
    deadlineSeconds: row.deadlineSeconds ?? null,
  };
}
