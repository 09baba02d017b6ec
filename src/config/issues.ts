// Turning schema issues into the messages an installer reads: the setting by its variable name,
// where the value came from, what is expected, and what was given (unless it is a secret).
import type { z } from 'zod';
import type { Origin } from './origins.js';
import { settingLabel, shownValue } from './origins.js';
import { SETTINGS, type SettingKey } from './settings.js';

export interface RawSettings {
  readonly values: Readonly<Record<string, unknown>>;
  readonly origins: ReadonlyMap<SettingKey, Origin>;
  /** The config file, for `profiles`, which only it can give. */
  readonly file?: string | undefined;
}

export function describeIssues(issues: readonly z.core.$ZodIssue[], raw: RawSettings): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const issue of issues) {
    const where = issue.path.map(String).join('.');
    if (seen.has(where)) continue; // one complaint a value is enough
    seen.add(where);
    lines.push(describeIssue(issue, raw));
  }
  return lines.join('\n');
}

function describeIssue(issue: z.core.$ZodIssue, raw: RawSettings): string {
  const [head, ...rest] = issue.path;
  const value = valueAt(raw.values, issue.path);
  if (typeof head === 'string' && head in SETTINGS) {
    const key = head as SettingKey;
    const label = settingLabel(key, raw.origins.get(key) ?? { from: 'env' });
    return withGot(`${label} ${issue.message}`, shownValue(key, value));
  }
  // Nested values (profiles) have no variable: name them by their path in the file.
  const path = [head, ...rest].reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text === '' ? String(part) : `${text}.${String(part)}`),
    '',
  );
  const label = raw.file === undefined ? path : `${path} (in ${raw.file})`;
  return withGot(`${label} ${issue.message}`, shownValue(undefined, value));
}

function withGot(message: string, shown: string | undefined): string {
  return shown === undefined ? message : `${message}; got ${shown}`;
}

function valueAt(values: Readonly<Record<string, unknown>>, path: readonly PropertyKey[]): unknown {
  let current: unknown = values;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}
