// The string literals of one of the page's scripts, found by a small scanner of JavaScript's
// lexical grammar (comments, quotes, templates with their substitutions, regular expressions):
// enough for the page's own plain scripts, and no parser to depend on.

export interface ScriptString {
  text: string;
  /** The text of a template before a substitution: it may start a key (`state.ble.${state}`). */
  prefix: boolean;
  /** The first argument of t(). */
  key: boolean;
  line: number;
}

/** After these, a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(['(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^', '']);

export function scriptStrings(code: string): ScriptString[] {
  const found: ScriptString[] = [];
  let i = 0;
  const lineAt = (at: number): number => code.slice(0, at).split('\n').length;
  const lastSignificant = (): string => {
    let j = i - 1;
    while (j >= 0 && /\s/.test(code[j] ?? '')) j--;
    return code[j] ?? '';
  };
  const calledByT = (start: number): boolean => /(?:^|[^\w.$])t\(\s*$/.test(code.slice(Math.max(0, start - 10), start));

  const quoted = (quote: string): string => {
    let text = '';
    i++;
    while (i < code.length && code[i] !== quote) {
      if (code[i] === '\\') {
        text += code[i + 1] === 'n' ? '\n' : (code[i + 1] ?? '');
        i += 2;
      } else text += code[i++];
    }
    i++;
    return text;
  };

  // A template: each run of text is one string; each substitution is scanned as code.
  const template = (): void => {
    const start = i;
    const key = calledByT(start);
    let text = '';
    let first = true;
    i++;
    while (i < code.length && code[i] !== '`') {
      if (code[i] === '\\') {
        text += code[i + 1] ?? '';
        i += 2;
      } else if (code[i] === '$' && code[i + 1] === '{') {
        found.push({ text, prefix: true, key: key && first, line: lineAt(start) });
        first = false;
        text = '';
        i += 2;
        scan('}');
        i++;
      } else text += code[i++];
    }
    i++;
    found.push({ text, prefix: false, key: key && first, line: lineAt(start) });
  };

  const scan = (until?: string): void => {
    let depth = 0;
    while (i < code.length) {
      const c = code[i] ?? '';
      if (until !== undefined && c === until && depth === 0) return;
      if (c === '{') depth++;
      if (c === '}') depth--;
      if (c === '/' && code[i + 1] === '/') i = code.indexOf('\n', i) === -1 ? code.length : code.indexOf('\n', i);
      else if (c === '/' && code[i + 1] === '*') i = code.indexOf('*/', i) + 2;
      else if (c === '\'' || c === '"') {
        const start = i;
        found.push({ text: quoted(c), prefix: false, key: calledByT(start), line: lineAt(start) });
      } else if (c === '`') template();
      else if (c === '/' && BEFORE_REGEX.has(lastSignificant())) {
        const start = i;
        i++;
        let inClass = false;
        while (i < code.length && (code[i] !== '/' || inClass)) {
          if (code[i] === '\\') i++;
          else if (code[i] === '[') inClass = true;
          else if (code[i] === ']') inClass = false;
          i++;
        }
        i++;
        while (/[a-z]/.test(code[i] ?? '')) i++;
        found.push({ text: code.slice(start, i), prefix: false, key: false, line: lineAt(start) });
      } else i++;
    }
  };
  scan();
  return found;
}
