import { format } from 'node:util';
import type { Logger } from './logger.js';
import { RateLimitedWarning } from './rate-limited.js';

/**
 * The daemon's stdout is its JSON log stream, yet libraries print with console (noble writes a
 * warning for each advertisement it cannot parse, at whatever rate they arrive). Everything
 * printed with console goes through the logger instead, at a bounded rate.
 */
export function captureConsole(logger: Logger): void {
  const printed = new RateLimitedWarning({ logger, summary: (n) => `${n} more library messages held back` });
  const capture = (...args: unknown[]): void => printed.warn({ text: format(...args).slice(0, 500) }, 'a library printed a message');
  console.log = capture;
  console.info = capture;
  console.warn = capture;
  console.error = capture;
  console.debug = capture;
}
