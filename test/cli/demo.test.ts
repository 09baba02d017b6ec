import { describe, expect, it } from 'vitest';
import { assertBuilt, runBinary } from '../support/binary.js';

// README's first command: `node bin/panic-pair.js demo` on a full (development) install.

describe('panic-pair demo', () => {
  it('links the simulated button through the embedded broker, the simulator and a real daemon, and exits 0', async () => {
    assertBuilt();
    const result = await runBinary(['demo'], { PATH: process.env.PATH }, { timeoutMs: 120_000 });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/2\. MQTT broker \(embedded\) at mqtt:\/\/127\.0\.0\.1:\d+/);
    expect(result.stdout).toMatch(/5\. the store says: DEMO-7F3A9C linked to customer 42 as link \d+/);
    expect(result.stdout).toContain('Done: button DEMO-7F3A9C is linked.');
    expect(result.code).toBe(0);
  }, 150_000);
});
