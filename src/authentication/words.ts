import type { DeviceRow } from '../supervision/types.js';

// How a linked button's reports have fared, in the words `devices` shows.

/** "not authenticated" for a button linked without a key; for a keyed one its counts, and
 * "imitated" while it is; undefined for a row that is no linked button. */
export function reportsWords(row: Pick<DeviceRow, 'state' | 'authenticated' | 'reports' | 'imitated'>): string | undefined {
  if (row.state !== 'linked' || row.authenticated === undefined) return undefined;
  if (!row.authenticated || row.reports === undefined) return 'not authenticated';
  const { verified, forged, replayed, plain } = row.reports;
  const refused = [forged > 0 ? `${forged} forged` : '', replayed > 0 ? `${replayed} replayed` : '', plain > 0 ? `${plain} plain` : ''].filter(Boolean);
  const counts = `${verified} verified${refused.length === 0 ? '' : `, ${refused.join(', ')}`}`;
  return row.imitated === true ? `imitated (${counts})` : counts;
}
