import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/binary.js';

// One stylesheet for both directions: every side is a logical one
// (margin-inline-start, not margin-left), so that Arabic, right to left, needs no second sheet.

const css = readFileSync(path.join(ROOT, 'src', 'web', 'assets', 'app.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');

describe("the page's stylesheet", () => {
  it('names no physical side: left, right, top or bottom', () => {
    const physical = css.match(/\b(?:margin|padding|border)-(?:left|right|top|bottom)\b|\b(?:left|right)\s*:|text-align:\s*(?:left|right)|float:\s*(?:left|right)/g) ?? [];
    expect(physical).toEqual([]);
  });
});
