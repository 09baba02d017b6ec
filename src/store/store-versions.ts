// The store's versions, and what a rollback needs to know of them: no zod here, so the judge of an
// update (src/update/, bundled into one small file) can read a store's version without the schema.

/** The schemaVersion this build writes. A newer file is refused, never rewritten. Version 2 added
 * `heard` (each linked button's last-heard time); a version 1 file is read as one with nothing
 * heard yet. Version 3 added each keyed button's last counted `counter` to `heard`; a version 2
 * file is read as one whose keyed buttons have counted nothing yet.
 *
 * A failed update is rolled back to the release before, which must still read the store the newer
 * one wrote (docs/operator/updates.md). So a release that changes the store:
 * - adds keys older code can ignore (an additive change) by raising only STORE_MINOR_VERSION: an
 *   older release of the same schemaVersion reads the file whatever its minorVersion, and keeps
 *   each key it does not know verbatim, with its record, through every rewrite (kept-keys.ts);
 * - raises STORE_SCHEMA_VERSION only for a change older code cannot read, and that release then
 *   writes, at every write of `pairings.json`, `rollbackCopyName(N)` beside it (N the
 *   schemaVersion it replaces): every link in the old form, for a rollback to put back. */
export const STORE_SCHEMA_VERSION = 3;
/** The minorVersion this build writes: changes older releases of STORE_SCHEMA_VERSION can read.
 * A file without one is minor 0. Minor 1 is the first to say it, and to keep unknown keys. */
export const STORE_MINOR_VERSION = 1;
/** Every version this build reads. */
export const READABLE_SCHEMA_VERSIONS: readonly number[] = [1, 2, 3];

/** The copy, in the old form, that a release raising schemaVersion writes for its rollback. */
export function rollbackCopyName(schemaVersion: number): string {
  return `pairings.schema-${schemaVersion}.json`;
}

/** The schemaVersion a store file's text declares; undefined when it is not JSON or says none. */
export function schemaVersionOfText(text: string): number | undefined {
  let value: unknown;
  try {
    // A leading BOM is dropped, as the store's reader decodes it.
    value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const version: unknown = (value as Record<string, unknown>).schemaVersion;
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 0 ? version : undefined;
}
