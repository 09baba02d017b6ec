// A batch of hubs from one CSV file: `hubId,customerId` and optionally `tokenFile` and
// `webCodeFile` (else the flags' files). Every row is checked before anything is written: a bad
// row is an error naming its row and column, and a bad batch writes nothing.
import { dirname, resolve } from 'node:path';
import { ProvisionInputError } from './errors.js';
import { customerIdOf, hubIdOf, tokenFrom, webCodeFrom, type Field, type ProvisionedHub } from './hub.js';

export const REQUIRED_COLUMNS = ['hubId', 'customerId'] as const;
export const OPTIONAL_COLUMNS = ['tokenFile', 'webCodeFile'] as const;
type Column = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];
const COLUMNS: readonly string[] = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS];

/** What every hub of the batch shares, from the flags. */
export interface BatchDefaults {
  readonly apiUrl: string;
  readonly tokenFile: string | undefined;
  readonly webCodeFile: string | undefined;
  readonly webListen: string;
  readonly mqttUrl: string | undefined;
  readonly debOnBoot: string | undefined;
}

export interface BatchRow {
  /** As a spreadsheet counts: the header is row 1. */
  readonly row: number;
  readonly values: Readonly<Partial<Record<Column, string>>>;
}

/** The rows of the CSV text; blank lines and lines starting with '#' are skipped. */
export function parseBatchCsv(text: string, file: string): BatchRow[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerIndex = lines.findIndex((line) => !skipped(line));
  if (headerIndex === -1) throw new ProvisionInputError({ field: '--csv' }, `${file} is empty; it needs a header line: ${COLUMNS.join(',')}`);
  const header = cellsOf(lines[headerIndex] ?? '', { field: 'header', row: headerIndex + 1 });
  header.forEach((name, index) => {
    const where = { field: `column ${index + 1}`, row: headerIndex + 1 };
    if (!COLUMNS.includes(name)) throw new ProvisionInputError(where, `unknown column ${JSON.stringify(name)}; the columns are ${COLUMNS.join(', ')}`);
    if (header.indexOf(name) !== index) throw new ProvisionInputError(where, `column ${name} appears twice`);
  });
  for (const required of REQUIRED_COLUMNS) {
    if (!header.includes(required)) throw new ProvisionInputError({ field: required, row: headerIndex + 1 }, `the header has no ${required} column`);
  }
  const rows: BatchRow[] = [];
  lines.forEach((line, index) => {
    if (index <= headerIndex || skipped(line)) return;
    const row = index + 1;
    const cells = cellsOf(line, { field: 'row', row });
    if (cells.length !== header.length) {
      throw new ProvisionInputError({ field: 'row', row }, `has ${cells.length} field(s); the header has ${header.length} (${header.join(',')})`);
    }
    const values: Partial<Record<Column, string>> = {};
    header.forEach((name, column) => {
      const cell = cells[column] ?? '';
      if (cell !== '') values[name as Column] = cell;
    });
    rows.push({ row, values });
  });
  if (rows.length === 0) throw new ProvisionInputError({ field: '--csv' }, `${file} has a header and no hub`);
  return rows;
}

function skipped(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === '' || trimmed.startsWith('#');
}

/** Cells split at commas; a cell may be in double quotes ("" for a quote inside). */
function cellsOf(line: string, where: Field): string[] {
  const cells: string[] = [];
  let rest = line;
  for (;;) {
    const quoted = /^\s*"((?:[^"]|"")*)"\s*(,|$)/.exec(rest);
    if (quoted !== null) {
      cells.push((quoted[1] ?? '').replaceAll('""', '"'));
      rest = rest.slice(quoted[0].length);
      if (quoted[2] === '') return cells;
      continue;
    }
    const comma = rest.indexOf(',');
    const cell = (comma === -1 ? rest : rest.slice(0, comma)).trim();
    if (cell.includes('"')) throw new ProvisionInputError(where, 'has a misplaced double quote');
    cells.push(cell);
    if (comma === -1) return cells;
    rest = rest.slice(comma + 1);
  }
}

/**
 * Every row checked (ids, files, duplicates) into the hubs to write, or the first problem found
 * as a ProvisionInputError naming its row and column. Relative file names are relative to the CSV file.
 */
export function planBatch(rows: readonly BatchRow[], csvFile: string, defaults: BatchDefaults): ProvisionedHub[] {
  const seen = new Map<string, number>();
  const base = dirname(resolve(csvFile));
  return rows.map(({ row, values }) => {
    const at = (field: Column): Field => ({ field, row });
    const hubId = hubIdOf(values.hubId ?? '', at('hubId'));
    // Compared without case: two names that differ only in case are one file on a vendor's laptop.
    const earlier = seen.get(hubId.toLowerCase());
    if (earlier !== undefined) throw new ProvisionInputError(at('hubId'), `${hubId} is already the hub id of row ${earlier}`);
    seen.set(hubId.toLowerCase(), row);
    const customerId = customerIdOf(values.customerId ?? '', at('customerId'));
    const tokenFile = values.tokenFile === undefined ? defaults.tokenFile : resolve(base, values.tokenFile);
    if (tokenFile === undefined) throw new ProvisionInputError(at('tokenFile'), 'is empty and no --token-file is given');
    const token = tokenFrom(tokenFile, values.tokenFile === undefined ? { field: '--token-file', row } : at('tokenFile'));
    const codeFile = values.webCodeFile === undefined ? defaults.webCodeFile : resolve(base, values.webCodeFile);
    const codeField = values.webCodeFile === undefined ? { field: '--web-code-file', row } : at('webCodeFile');
    const web = codeFile === undefined ? undefined : { code: webCodeFrom(codeFile, codeField), listen: defaults.webListen };
    return { hubId, apiUrl: defaults.apiUrl, customerId, token, web, mqttUrl: defaults.mqttUrl, debOnBoot: defaults.debOnBoot };
  });
}

/** The file a hub's user-data goes to in --out-dir: named after its hub id. */
export function batchFileName(hubId: string): string {
  return `${hubId}.user-data`;
}
