import type { HubRow } from './hub-row.js';

// `fleet --json`: the rows as one JSON array, the same text `JSON.stringify(rows, null, 2)` makes,
// written a few hundred rows at a time, each part's rows made only then. Built whole, 100,000 rows
// were a 45 MB string, its copy with the newline and its 45 MB Buffer at once: over 100 MB of the
// reader's peak RSS (docs/reference/performance.md).

/** Rows a write: small next to the rows themselves, large enough that writes stay few. */
const ROWS_A_WRITE = 500;

/** An array of rows, or rows made a part at a time (fleet-snapshot.ts). */
export interface RowsInParts {
  readonly length: number;
  slice(from: number, to: number): readonly HubRow[];
}

/**
 * Writes the array part by part, waiting for each write `write` returns a promise of: stdout to
 * a pipe (`fleet --json | jq`, a monitoring system reading it) queues in this process whatever
 * the reader has not taken yet, and written all at once that was the whole array again, 48 MB
 * for 100,000 hubs, as a peak of 290 MB against 170 MB to a file.
 */
export async function writeJsonRows(rows: RowsInParts, write: (text: string) => void | Promise<void>): Promise<void> {
  if (rows.length === 0) {
    await write('[]\n');
    return;
  }
  for (let from = 0; from < rows.length; from += ROWS_A_WRITE) {
    // A part's own array, without its brackets, is its rows as the whole array indents them.
    const array = JSON.stringify(rows.slice(from, from + ROWS_A_WRITE), null, 2);
    const opening = from === 0 ? '[\n' : ',\n';
    const closing = from + ROWS_A_WRITE >= rows.length ? '\n]\n' : '';
    await write(`${opening}${array.slice(2, -2)}${closing}`);
  }
}

/** A write to `stream` that resolves once the stream wants more (its 'drain' after a full buffer). */
export function writeWaiting(stream: NodeJS.WritableStream): (text: string) => Promise<void> {
  return (text) => new Promise((resolve) => (stream.write(text) ? resolve() : stream.once('drain', () => resolve())));
}
