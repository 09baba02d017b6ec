import { afterEach, describe, expect, it } from 'vitest';
import { captureConsole } from '../../src/log/console-capture.js';
import { captureLog } from '../support/log-capture.js';

const original = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug };
afterEach(() => Object.assign(console, original));

describe('captureConsole', () => {
  it('sends what libraries print through the logger, at a bounded rate', () => {
    const log = captureLog();
    captureConsole(log.logger);
    for (let i = 0; i < 50; i++) console.warn('noble warning: unknown peripheral %s', `p${i}`);
    console.log('noble: adapter state unauthorized');
    const lines = log.lines.filter((line) => line.msg === 'a library printed a message');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatchObject({ text: 'noble warning: unknown peripheral p0' });
  });
});
