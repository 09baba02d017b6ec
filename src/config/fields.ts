// Building blocks of the settings schema. Every check carries the full "must be <form>" message,
// so the loader only has to say which setting, and where it came from. Values from the
// environment and flags arrive as text; the config file may give JSON numbers and booleans.
import { resolve } from 'node:path';
import { z } from 'zod';

export function must(form: string): { error: string } {
  return { error: `must be ${form}` };
}

export function text(form: string) {
  return z.string(must(form)).trim().min(1, must(form));
}

/** A path, made absolute against the working directory (file values arrive already absolute). */
export function path(form: string) {
  return text(form).transform((value) => resolve(value));
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

// Number() alone would take "0x10", "1e3" and " " as numbers: only plain decimals are converted.
function numberFromText(pattern: RegExp) {
  return (value: unknown): unknown =>
    typeof value === 'string' && pattern.test(value.trim()) ? Number(value.trim()) : value;
}

/** `rangeForm` words the range when the form leaves it implicit ("a positive integer, ..."). */
export function integer(form: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER, rangeForm = form) {
  const e = must(form);
  const range = must(rangeForm);
  return z.preprocess(numberFromText(INTEGER), z.number(e).int(e).min(min, range).max(max, range));
}

/** A decimal number in (above, max]. */
export function decimal(form: string, above: number, max: number) {
  const e = must(form);
  return z.preprocess(numberFromText(DECIMAL), z.number(e).gt(above, e).max(max, e));
}

const TRUE_WORDS = new Set(['true', '1']);
const FALSE_WORDS = new Set(['false', '0']);

export function yesNo(form: string) {
  const word = (value: unknown): unknown => {
    const key = typeof value === 'string' ? value.trim().toLowerCase() : typeof value === 'number' ? String(value) : value;
    if (typeof key !== 'string') return key;
    return TRUE_WORDS.has(key) ? true : FALSE_WORDS.has(key) ? false : value;
  };
  return z.preprocess(word, z.boolean(must(form)));
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T, form: string) {
  const word = (value: unknown): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);
  return z.preprocess(word, z.enum(values, must(form)));
}
