// Where a text stops being JSON. V8's JSON.parse names the position for some faults and only a
// snippet for others ("Unexpected token '}', ...") ; an installer fixing or judging a store file by
// hand needs the place every time. Used only after JSON.parse has failed, so speed is no concern.
class Stop {
  constructor(readonly at: number) {}
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** The offset of the first character that breaks the JSON grammar (the length when the text ends
 * early), or null when the text is valid or too deeply nested to scan. */
export function jsonErrorPosition(text: string): number | null {
  let at = 0;
  const stop = (): never => {
    throw new Stop(at);
  };
  const isDigit = (): boolean => at < text.length && text[at]! >= '0' && text[at]! <= '9';
  const skipWhitespace = (): void => {
    while (at < text.length && WHITESPACE.has(text[at]!)) at += 1;
  };
  const expectChar = (char: string): void => {
    if (text[at] !== char) stop();
    at += 1;
  };
  const digits = (): void => {
    if (!isDigit()) stop();
    while (isDigit()) at += 1;
  };
  const string = (): void => {
    expectChar('"');
    for (;;) {
      if (at >= text.length || text.charCodeAt(at) < 0x20) stop();
      const char = text[at]!;
      at += 1;
      if (char === '"') return;
      if (char !== '\\') continue;
      if (text[at] === 'u') {
        at += 1;
        for (let k = 0; k < 4; k += 1) {
          if (!/^[0-9a-fA-F]$/.test(text[at] ?? '')) stop();
          at += 1;
        }
      } else if (ESCAPES.has(text[at] ?? '')) at += 1;
      else stop();
    }
  };
  const number = (): void => {
    if (text[at] === '-') at += 1;
    if (text[at] === '0') at += 1;
    else digits();
    if (text[at] === '.') {
      at += 1;
      digits();
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at += 1;
      if (text[at] === '+' || text[at] === '-') at += 1;
      digits();
    }
  };
  const sequence = (close: string, member: () => void): void => {
    at += 1;
    skipWhitespace();
    if (text[at] === close) {
      at += 1;
      return;
    }
    for (;;) {
      member();
      skipWhitespace();
      if (text[at] === ',') at += 1;
      else return expectChar(close);
    }
  };
  const value = (): void => {
    skipWhitespace();
    const char = text[at];
    if (char === '{') {
      return sequence('}', () => {
        skipWhitespace();
        string();
        skipWhitespace();
        expectChar(':');
        value();
      });
    }
    if (char === '[') return sequence(']', value);
    if (char === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (char === word[0]) return [...word].forEach(expectChar);
    }
    if (char === '-' || isDigit()) return number();
    stop();
  };
  try {
    value();
    skipWhitespace();
    if (at < text.length) stop();
    return null;
  } catch (error) {
    // RangeError: nesting deep enough to exhaust the stack; the caller falls back to V8's words.
    if (error instanceof Stop) return error.at;
    return null;
  }
}

/** "position 33 (line 2, column 5)", counted from 0 and from 1 as editors do. */
export function describeJsonPosition(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - (before.lastIndexOf('\n') + 1) + 1;
  const early = position >= text.length ? '; it ends early' : '';
  return `position ${position} (line ${line}, column ${column}${early})`;
}
