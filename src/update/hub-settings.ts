// The two settings the judge needs, read as the daemon would see them under its unit: the
// probation's length and the state directory. An environment variable in the unit (or a drop-in)
// outranks the config file, as for the daemon. The judge never refuses a value: it falls back to
// the default, since a setting the daemon refuses is the daemon's refusal to judge.
import { readFileSync } from 'node:fs';
import { DAEMON_UNIT, properties } from './system-facts.js';

export const DEFAULT_PROBATION_SECONDS = 600;
export const MIN_PROBATION_SECONDS = 60;
const DEFAULT_CONFIG = '/etc/panic-pair/config.json';
const DEFAULT_STATE_DIR = '/var/lib/panic-pair';

export interface HubSettings {
  probationSeconds: number;
  stateDir: string;
}

export function hubSettings(): HubSettings {
  let environment: Record<string, string> = {};
  try {
    environment = unitEnvironment(properties(DAEMON_UNIT, ['Environment']).Environment ?? '');
  } catch {
    // no systemd to ask: the config file and the defaults
  }
  let file: Record<string, unknown> = {};
  try {
    file = JSON.parse(readFileSync(environment.PANIC_PAIR_CONFIG ?? DEFAULT_CONFIG, 'utf8')) as Record<string, unknown>;
  } catch {
    // none, or one the daemon itself will refuse
  }
  return {
    probationSeconds: probationSeconds(environment.PANIC_PAIR_UPDATE_PROBATION ?? file.updateProbation),
    stateDir: typeof environment.PANIC_PAIR_STATE_DIR === 'string' && environment.PANIC_PAIR_STATE_DIR.startsWith('/') ? environment.PANIC_PAIR_STATE_DIR : typeof file.stateDir === 'string' && file.stateDir.startsWith('/') ? file.stateDir : DEFAULT_STATE_DIR,
  };
}

export function probationSeconds(value: unknown): number {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(seconds) && seconds >= MIN_PROBATION_SECONDS ? seconds : DEFAULT_PROBATION_SECONDS;
}

/** systemd's `Environment=` as shown: NAME=value pairs separated by spaces, a value with spaces quoted. */
export function unitEnvironment(shown: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of shown.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const [, name = '', raw = ''] = match;
    found[name] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return found;
}
