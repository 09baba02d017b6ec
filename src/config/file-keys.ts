// The config file's keys. An unknown key is an error, with a suggestion: a typo silently ignored
// would leave a setting at its default without anyone noticing.
import { PanicPairError } from '../errors.js';
import type { ConfigFile } from './config-file.js';
import { PROFILES_FILE_KEY, SETTINGS, SETTING_KEYS } from './settings.js';

const KNOWN: readonly string[] = [
  ...SETTING_KEYS.flatMap((key) => (SETTINGS[key].fileKey === null ? [] : [SETTINGS[key].fileKey])),
  PROFILES_FILE_KEY,
];

export function checkFileKeys(file: ConfigFile): void {
  if ('apiToken' in file.values) {
    throw new PanicPairError(
      'config',
      `apiToken in ${file.path} is not accepted: the config file is readable by others. ` +
        `Put the token in a file of its own (chmod 600) and name it in apiTokenFile`,
    );
  }
  const unknown = Object.keys(file.values).filter((key) => !KNOWN.includes(key));
  if (unknown.length === 0) return;
  const named = unknown.map((key) => {
    const guess = suggestion(key);
    return guess === undefined ? JSON.stringify(key) : `${JSON.stringify(key)} (did you mean "${guess}"?)`;
  });
  throw new PanicPairError(
    'config',
    `${file.path} has unknown key${unknown.length > 1 ? 's' : ''} ${named.join(', ')}; known keys: ${KNOWN.join(', ')}`,
  );
}

// customer_id, CUSTOMER-ID, PANIC_PAIR_CUSTOMER_ID and custmerId all point at customerId.
function suggestion(key: string): string | undefined {
  const plain = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, '').replace(/^panicpair/, '');
  const wanted = plain(key);
  let best: { key: string; distance: number } | undefined;
  for (const known of KNOWN) {
    const distance = editDistance(wanted, plain(known));
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { key: known, distance };
  }
  return best?.key;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
