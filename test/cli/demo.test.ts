import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runBinary } from '../support/binary.js';

// `panic-pair demo` as a new user runs it: the real binary, its own simulator, broker and daemon.

beforeAll(() => assertBuilt());

describe('panic-pair demo', () => {
  it('waits for its daemon to answer, pairs the button and exits 0', async () => {
    const result = await runBinary(['demo'], { PATH: process.env.PATH }, { timeoutMs: 120_000 });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^3\. pairing daemon running \(pid \d+\)/m);
    expect(result.stdout).toContain('Done: both buttons are linked');
    expect(result.code).toBe(0);
  });

  it('a daemon that fails to start is reported as the demo\'s own, with its last words, not as a service to start', async () => {
    // A setting the demo does not override, made invalid: the daemon exits 2 at start.
    const result = await runBinary(['demo'], { PATH: process.env.PATH, PANIC_PAIR_API_TIMEOUT: 'soon' }, { timeoutMs: 120_000 });
    expect(result.stderr).toMatch(/the demo's daemon \(pid \d+\) exited with code 2 before it was ready/);
    expect(result.stderr).toContain('PANIC_PAIR_API_TIMEOUT');
    expect(result.stderr).not.toContain('systemctl');
    expect(result.code).not.toBe(0);
  });
});
