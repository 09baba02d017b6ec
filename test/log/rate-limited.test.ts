import { describe, expect, it } from 'vitest';
import { RateLimitedWarning } from '../../src/log/rate-limited.js';
import { captureLog } from '../support/log-capture.js';

function setup() {
  const log = captureLog();
  let clock = 1_000_000;
  const warning = new RateLimitedWarning({
    logger: log.logger,
    limit: 5,
    intervalMs: 60_000,
    now: () => clock,
    summary: (n) => `${n} more invalid announcements dropped`,
  });
  return { log, warning, advance: (ms: number) => (clock += ms) };
}

describe('RateLimitedWarning', () => {
  it('logs the first five warnings of a minute in full and holds back the rest', () => {
    const { log, warning } = setup();
    for (let i = 0; i < 12; i++) warning.warn({ n: i }, 'invalid announcement dropped');
    expect(log.lines.map((line) => line.n)).toEqual([0, 1, 2, 3, 4]);
    expect(log.lines.every((line) => line.level === 40)).toBe(true);
    expect(warning.suppressed).toBe(7);
  });

  it('reports the held-back count in one summary line when the next minute starts', () => {
    const { log, warning, advance } = setup();
    for (let i = 0; i < 8; i++) warning.warn({ n: i }, 'invalid announcement dropped');
    advance(59_999);
    warning.warn({ n: 8 }, 'invalid announcement dropped');
    expect(log.lines).toHaveLength(5);
    advance(1);
    warning.warn({ n: 9 }, 'invalid announcement dropped');
    expect(log.lines.slice(5).map((line) => line.msg)).toEqual(['4 more invalid announcements dropped', 'invalid announcement dropped']);
    expect(log.lines[5]!.suppressed).toBe(4);
    expect(log.lines[6]!.n).toBe(9);
  });

  it('writes no summary when nothing was held back', () => {
    const { log, warning, advance } = setup();
    warning.warn({}, 'one');
    advance(120_000);
    warning.warn({}, 'two');
    warning.flush();
    expect(log.lines.map((line) => line.msg)).toEqual(['one', 'two']);
  });

  it('flush() reports what is held back, e.g. at shutdown', () => {
    const { log, warning } = setup();
    for (let i = 0; i < 6; i++) warning.warn({}, 'bad');
    warning.flush();
    expect(log.lines.at(-1)!.msg).toBe('1 more invalid announcements dropped');
    expect(warning.suppressed).toBe(0);
  });
});
