// Where each value came from, so an error can tell the installer which line to fix.
import { withoutUserInfo } from './addresses.js';
import { settingOf, type SettingKey } from './settings.js';

export type Origin =
  | { from: 'flag' }
  | { from: 'env' }
  | { from: 'file'; file: string }
  | { from: 'systemd'; variable: string }
  | { from: 'default' };

/** "PANIC_PAIR_CUSTOMER_ID (customerId in /etc/panic-pair/config.json)", or just the variable. */
export function settingLabel(key: SettingKey, origin: Origin): string {
  const setting = settingOf(key);
  switch (origin.from) {
    case 'env':
      return setting.env;
    case 'flag':
      return `${setting.env} (${setting.flag ?? key})`;
    case 'file':
      return `${setting.env} (${setting.fileKey ?? key} in ${origin.file})`;
    case 'systemd':
      return `${setting.env} (from $${origin.variable})`;
    case 'default':
      return `${setting.env} (default)`;
  }
}

/** The value as it may be shown back: secrets never, addresses without user info, long values cut. */
export function shownValue(key: SettingKey | undefined, value: unknown): string | undefined {
  const setting = key === undefined ? undefined : settingOf(key);
  if (setting?.secret || value === undefined) return undefined;
  if (value !== null && typeof value === 'object') return undefined;
  let shown = JSON.stringify(value) ?? String(value);
  if (setting?.address && typeof value === 'string') shown = JSON.stringify(withoutUserInfo(value));
  return shown.length > 120 ? `${shown.slice(0, 117)}...` : shown;
}
