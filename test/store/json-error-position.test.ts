import { describe, expect, it } from 'vitest';
import { describeJsonPosition, jsonErrorPosition } from '../../src/store/json-error-position.js';

/** What JSON.parse threw on the text; fails the test when it parses. */
function parseError(text: string): Error {
  try {
    JSON.parse(text);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
}

const positionOf = (text: string) => jsonErrorPosition(parseError(text), text);

describe('jsonErrorPosition', () => {
  it('takes the position V8 names', async () => {
    expect(await positionOf('{"a": 1,}')).toBe(8);
    expect(await positionOf('[01]')).toBe(2);
    expect(await positionOf('{"a": 1} x')).toBe(9);
    expect(await positionOf('"\\x"')).toBe(2);
    expect(await positionOf('{"a": [1, 2')).toBe(11);
    expect(await positionOf('{"a": "\u0001"}')).toBe(7);
  });

  it('places a text cut short at its end', async () => {
    expect(await positionOf('{"a"')).toBe(4);
    expect(await positionOf('[1, "ab')).toBe(7);
  });

  it('places an unexpected character, where V8 names only a snippet', async () => {
    expect(await positionOf('{"schemaVersion": 1, "devices": [}')).toBe(33);
    expect(await positionOf('{\n  "a": x}')).toBe(9);
    // A misspelt literal is placed at its first letter.
    expect(await positionOf('{"a": tru}')).toBe(6);
  });

  it('places every fault in many damaged copies of a store file', async () => {
    const source = JSON.stringify(
      { schemaVersion: 1, devices: [{ deviceId: 'a-1', state: 'linked', linkId: 9, error: 'x "y"\n', at: -1.5e3 }] },
      null,
      2,
    );
    const damage = ['}', ']', ',', ':', '"', '\\', 'x', 't', '\u0001', ''];
    let snippetsOnly = 0;
    for (let at = 0; at < source.length; at += 1) {
      for (const replacement of damage) {
        const text = source.slice(0, at) + replacement + source.slice(at + 1);
        let error: Error;
        try {
          JSON.parse(text);
          continue;
        } catch (thrown) {
          error = thrown as Error;
        }
        const position = await jsonErrorPosition(error, text);
        expect(position, text).not.toBeNull();
        expect(position!, text).toBeGreaterThanOrEqual(0);
        expect(position!, text).toBeLessThanOrEqual(text.length);
        const named = /at position (\d+)/.exec(error.message)?.[1];
        if (named !== undefined) expect(position, text).toBe(Number(named));
        const token = /^Unexpected token '([\s\S])'/.exec(error.message)?.[1];
        if (token !== undefined) {
          // At the character V8 names, or at the start of the misspelt word that holds or ends with it.
          const word = /^[A-Za-z]*/.exec(text.slice(position!))![0];
          expect(text.slice(position!, position! + word.length + 1), text).toContain(token);
          snippetsOnly += 1;
        }
      }
    }
    expect(snippetsOnly).toBeGreaterThan(100);
  });

  it('gives up on nesting too deep to scan, so the caller keeps V8 words', async () => {
    const text = `${'['.repeat(200_000)}}`;
    expect(await positionOf(text)).toBeNull();
  });

  it('describes a position by line and column, and says when the text ends early', () => {
    expect(describeJsonPosition('{\n  "a": x}', 9)).toBe('position 9 (line 2, column 8)');
    expect(describeJsonPosition('{"a"', 4)).toBe('position 4 (line 1, column 5; it ends early)');
  });
});
