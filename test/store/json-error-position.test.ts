import { describe, expect, it } from 'vitest';
import { describeJsonPosition, jsonErrorPosition } from '../../src/store/json-error-position.js';

const valid = [
  '{"schemaVersion": 1, "devices": []}',
  '[1, -0.5e+3, "a\\u00e9\\n", true, false, null, {"k": [{}]}]',
  ' \n 0 \t',
  '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
];

describe('jsonErrorPosition', () => {
  it('finds nothing wrong in valid JSON', () => {
    for (const text of valid) expect(jsonErrorPosition(text), text).toBeNull();
  });

  it('points where the text breaks, also where V8 names only a snippet', () => {
    expect(jsonErrorPosition('{"schemaVersion": 1, "devices": [}')).toBe(33);
    expect(jsonErrorPosition('{"a": 1,}')).toBe(8);
    expect(jsonErrorPosition('{"a": tru}')).toBe(9);
    expect(jsonErrorPosition('[01]')).toBe(2);
    expect(jsonErrorPosition('{"a": 1} x')).toBe(9);
    expect(jsonErrorPosition('"\\x"')).toBe(2);
    expect(jsonErrorPosition('{"a": [1, 2')).toBe(11);
  });

  it('agrees with V8 wherever V8 names a position, over many damaged copies of a store file', () => {
    const source = JSON.stringify(
      { schemaVersion: 1, devices: [{ deviceId: 'a-1', state: 'linked', linkId: 9, error: 'x "y"\n', at: -1.5e3 }] },
      null,
      2,
    );
    const damage = ['}', ']', ',', ':', '"', '\\', 'x', '\u0001', ''];
    let compared = 0;
    for (let at = 0; at < source.length; at += 1) {
      for (const replacement of damage) {
        const text = source.slice(0, at) + replacement + source.slice(at + 1);
        let v8: number | null = null;
        try {
          JSON.parse(text);
        } catch (error) {
          const named = /at position (\d+)/.exec((error as Error).message)?.[1];
          v8 = named === undefined ? -1 : Number(named);
        }
        if (v8 === null) expect(jsonErrorPosition(text), text).toBeNull();
        else if (v8 >= 0) {
          expect(jsonErrorPosition(text), text).toBe(v8);
          compared += 1;
        } else expect(jsonErrorPosition(text), text).not.toBeNull();
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('describes a position by line and column, and says when the text ends early', () => {
    expect(describeJsonPosition('{\n  "a": x}', 9)).toBe('position 9 (line 2, column 8)');
    expect(describeJsonPosition('{"a"', 4)).toBe('position 4 (line 1, column 5; it ends early)');
  });
});
