// The configuration reference (docs/reference/configuration.md) lists exactly the settings of
// src/config/settings.ts, each with its variable, config-file key, flag and default as the code has
// them, and names no setting, variable or profile field the code does not know.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../src/config/profile.js';
import { SETTINGS, SETTING_KEYS, type Setting } from '../../src/config/settings.js';

const PAGE = readFileSync(new URL('../../docs/reference/configuration.md', import.meta.url), 'utf8');
const SETTINGS_HEADER = ['variable', 'config-file key', 'flag', 'default', 'value'];

interface Row {
  readonly line: number;
  readonly cells: string[];
}

/** The rows of the table whose header is `header`, each split into its cells. */
function tableRows(text: string, header: readonly string[]): Row[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => sameCells(cellsOf(line), header));
  if (start === -1) throw new Error(`no table with the header | ${header.join(' | ')} |`);
  const rows: Row[] = [];
  for (let index = start + 2; index < lines.length && lines[index]!.startsWith('|'); index++) {
    rows.push({ line: index + 1, cells: cellsOf(lines[index]!) });
  }
  return rows;
}

function cellsOf(line: string): string[] {
  if (!line.trim().startsWith('|')) return [];
  return line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((cell) => cell.trim());
}

function sameCells(cells: readonly string[], header: readonly string[]): boolean {
  return cells.length === header.length && cells.every((cell, index) => cell === header[index]);
}

/** A cell as the reader sees it: without the backticks of code. */
const plain = (cell: string): string => cell.replaceAll('`', '').trim();
/** How the page writes a key or a flag, or "none" where the setting has none. */
const written = (value: string | null): string => (value === null ? 'none' : `\`${value}\``);

describe('the configuration reference', () => {
  const rows = tableRows(PAGE, SETTINGS_HEADER);
  const byVariable = new Map(rows.map((row) => [plain(row.cells[0] ?? ''), row]));

  it('has one row a setting, and no row for a setting that does not exist', () => {
    const malformed = rows.filter((row) => row.cells.length !== SETTINGS_HEADER.length).map((row) => `line ${row.line}`);
    expect(malformed, 'rows without five cells').toEqual([]);
    const variables = rows.map((row) => plain(row.cells[0] ?? ''));
    expect(variables.length, 'a variable listed twice').toBe(new Set(variables).size);
    expect([...variables].sort()).toEqual(SETTING_KEYS.map((key) => SETTINGS[key].env).sort());
  });

  it("gives each setting's config-file key, flag and default as the code has them", () => {
    const wrong: string[] = [];
    for (const key of SETTING_KEYS) {
      const setting: Setting = SETTINGS[key];
      const row = byVariable.get(setting.env);
      if (row === undefined) continue; // the test above names it
      const [, fileKey = '', flag = '', defaultCell = ''] = row.cells;
      const where = `${setting.env} (line ${row.line})`;
      if (fileKey !== written(setting.fileKey)) wrong.push(`${where}: config-file key ${fileKey}, expected ${written(setting.fileKey)}`);
      if (flag !== written(setting.flag)) wrong.push(`${where}: flag ${flag}, expected ${written(setting.flag)}`);
      if (plain(defaultCell) !== setting.defaultText) wrong.push(`${where}: default "${plain(defaultCell)}", expected "${setting.defaultText}"`);
      if (setting.default !== undefined && !plain(defaultCell).includes(String(setting.default))) {
        wrong.push(`${where}: the default cell does not hold the default value ${String(setting.default)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('names no variable that is not a setting', () => {
    const known = new Set<string>(SETTING_KEYS.map((key) => SETTINGS[key].env));
    const named = new Set(PAGE.match(/\bPANIC_PAIR_[A-Z0-9_]+\b/g) ?? []);
    expect([...named].filter((name) => !known.has(name))).toEqual([]);
  });

  it('lists every field of a profile, and no other', () => {
    const fieldRows = tableRows(PAGE, ['field', 'value']);
    const fields = fieldRows.map((row) => plain(row.cells[0] ?? '')).sort();
    expect(fields).toEqual(Object.keys(profileSchema.shape).sort());
    const cell = (field: string): string => fieldRows.find((row) => plain(row.cells[0] ?? '') === field)?.cells[1] ?? '';
    for (const matchField of Object.keys(profileSchema.shape.match.shape)) expect(cell('match')).toContain(`\`${matchField}\``);
    for (const option of profileSchema.shape.deviceId.options) {
      expect(cell('deviceId')).toContain(`{"from": "${option.shape.from.value}"`);
    }
  });
});
