// Where a store file stops being JSON, for the message that refuses it: an installer fixing or
// judging the file by hand needs the place every time. V8 names the position for most faults
// ("... in JSON at position 8") and the end for a text cut short, but only a snippet for an
// unexpected character (`Unexpected token '}', ..."evices": [}" is not valid JSON`); libraries
// that reword V8's message (json-parse-even-better-errors, parse-json) cannot place that one either.
// There a JSON parser that tracks positions (momoa) places it: it points at the start of the
// token it could not take, so a misspelt `tru` is placed at its `t`. Loaded only here, once
// JSON.parse has failed, so the daemon never pays for it otherwise.

/** The offset of the fault `error` (what JSON.parse threw on `text`) reports or momoa finds; the
 * length when the text ends early; null when neither can place it (e.g. nesting too deep to scan). */
export async function jsonErrorPosition(error: unknown, text: string): Promise<number | null> {
  const message = error instanceof Error ? error.message : '';
  const named = /in JSON at position (\d+)/.exec(message)?.[1];
  if (named !== undefined) return Number(named);
  if (message.startsWith('Unexpected end of JSON input')) return text.length;
  const { parse } = await import('@humanwhocodes/momoa');
  try {
    parse(text, { mode: 'json' });
  } catch (fault) {
    const offset = (fault as { offset?: unknown }).offset;
    if (typeof offset === 'number') return offset;
  }
  return null;
}

/** "position 33 (line 2, column 5)", counted from 0 and from 1 as editors do. */
export function describeJsonPosition(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - (before.lastIndexOf('\n') + 1) + 1;
  const early = position >= text.length ? '; it ends early' : '';
  return `position ${position} (line ${line}, column ${column}${early})`;
}
