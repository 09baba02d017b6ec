// MQTT topic rules (MQTT 3.1.1 section 4.7): what a prefix we publish under, and a filter we
// subscribe to, may hold. Each returns what is wrong, or undefined.

/** A prefix we publish under: no wildcards, no $ (reserved for the broker), no empty first or last level. */
export function topicPrefixProblem(prefix: string): string | undefined {
  if (/[#+]/.test(prefix)) return 'must not hold the wildcards + or #';
  if (prefix.includes('\u0000')) return 'must not hold a NUL character';
  if (prefix.startsWith('$')) return 'must not start with $ (topics reserved for the broker)';
  if (prefix.startsWith('/') || prefix.endsWith('/')) return 'must not start or end with /';
  return undefined;
}

/** A filter we subscribe to: + fills a whole level, # only as the whole last level. */
export function topicFilterProblem(filter: string): string | undefined {
  if (filter.includes('\u0000')) return 'must not hold a NUL character';
  const levels = filter.split('/');
  for (const [index, level] of levels.entries()) {
    if (level.includes('+') && level !== '+') return `has + inside the level "${level}"; + must fill a whole level`;
    if (level.includes('#') && (level !== '#' || index !== levels.length - 1)) {
      return '# may only be the whole last level';
    }
  }
  return undefined;
}
