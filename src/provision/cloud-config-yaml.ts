// The few YAML shapes a cloud-config needs (maps, lists, strings, numbers, booleans), written by
// hand. A one-line string is a JSON string, which YAML reads as a double-quoted scalar, so no value
// (a token with a colon, a path with a '#') can change the document's structure; a text of several
// lines (a script, a JSON file) is a literal block, kept readable, whose indentation bounds it.

export type YamlValue = string | number | boolean | readonly YamlValue[] | { readonly [key: string]: YamlValue };

export function yamlLines(value: YamlValue, indent = 0): string[] {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    return value.flatMap((item: YamlValue) => {
      const [first = '', ...rest] = isBlock(item) ? yamlLines(item, indent + 2) : inline(item, indent + 2);
      return [`${pad}- ${first.slice(indent + 2)}`, ...rest];
    });
  }
  if (typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => {
      if (isBlock(item)) return [`${pad}${key}:`, ...yamlLines(item, Array.isArray(item) ? indent : indent + 2)];
      const [first = '', ...rest] = inline(item, indent + 2);
      return [`${pad}${key}: ${first.trimStart()}`, ...rest];
    });
  }
  return inline(value, indent);
}

/** A list of scalars, or a map holding something, is written as a block; anything else on one line. */
function isBlock(value: YamlValue): value is readonly YamlValue[] | { readonly [key: string]: YamlValue } {
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((item: YamlValue) => typeof item === 'object' || isLiteral(item));
  return Object.keys(value).length > 0;
}

/** The value's lines, the first one without its indentation's meaning (the caller places it). */
function inline(value: YamlValue, indent: number): string[] {
  const pad = ' '.repeat(indent);
  if (typeof value === 'string' && isLiteral(value)) {
    const body = value.endsWith('\n') ? value.slice(0, -1) : value;
    return [`${pad}${value.endsWith('\n') ? '|' : '|-'}`, ...body.split('\n').map((line) => (line === '' ? '' : `${pad}${line}`))];
  }
  if (Array.isArray(value)) return [`${pad}[${value.map((item: YamlValue) => scalar(item)).join(', ')}]`];
  return [`${pad}${scalar(value)}`];
}

/**
 * Several lines, one newline at most at the end, no tab or other control character, and a first
 * line that does not start with a space (YAML would read that as the block's indentation).
 */
function isLiteral(value: YamlValue): value is string {
  return (
    typeof value === 'string' &&
    value.replace(/\n$/, '').includes('\n') &&
    !/\n\n$/.test(value) &&
    !/^\s/.test(value) &&
    !/[\u0000-\u0009\u000b-\u001f\u007f]/.test(value)
  );
}

function scalar(value: YamlValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object') return Array.isArray(value) ? '[]' : '{}';
  return String(value);
}
