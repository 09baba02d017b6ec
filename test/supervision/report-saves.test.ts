import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import type { HeardSection } from '../../src/store/schema.js';
import type { DeviceRecord } from '../../src/store/record.js';
import { SWEEP_MS, Supervisor } from '../../src/supervision/supervisor.js';

// A report that changes a button's supervision is saved at once (CONTRACT.md section 17), but a
// save writes every button: when a thousand are heard again at once (after a window, after a
// restart) the changes that follow the first within a sweep's period ride on that sweep's save,
// rather than each asking for one of its own (issue 50). On a fake monotonic clock.

const linked = (deviceId: string): DeviceRecord => ({ deviceId, state: 'linked', customerId: 42, source: 'mqtt', linkId: 1, linkedAt: '2026-11-01T00:00:00.000Z', updatedAt: '2026-11-01T00:00:00.000Z' });
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function rig(count: number) {
  const clock = { now: 0 };
  const saves: HeardSection[] = [];
  const supervisor = new Supervisor({
    on: true,
    maxSeconds: 7200,
    batteryLowPercent: 20,
    profiles: [],
    sourceUp: () => true,
    save: async (section) => {
      saves.push(section);
    },
    logger: silentLogger(),
    clock: () => clock.now,
    wallClock: () => Date.parse('2026-11-29T00:00:00Z') + clock.now,
  });
  const ids = Array.from({ length: count }, (_, i) => `B${i}`);
  supervisor.load(ids.map(linked), undefined);
  return { clock, saves, supervisor, ids };
}

describe('saves asked for by reports', () => {
  it('1,000 buttons heard again over 10 s: one save at once, then one a sweep, each with every change', async () => {
    const { clock, saves, supervisor, ids } = rig(1_000);
    for (const [i, deviceId] of ids.entries()) {
      clock.now = i * 10;
      supervisor.heard({ deviceId, source: 'mqtt', at: clock.now });
      if (clock.now % SWEEP_MS === 0 && clock.now > 0) supervisor.sweep();
      await turn();
    }
    // At once for the first, then the sweep at 5 s for the 499 after it.
    expect(saves.length).toBe(2);
    clock.now = 10_000;
    supervisor.sweep();
    await turn();
    // And the sweep at 10 s for the last 500: three saves, where each change asked for one of its own.
    expect(saves.length).toBe(3);
    expect(supervisor.counts().online).toBe(1_000);
    expect(Object.values(saves.at(-1)!.devices).filter((saved) => saved.lastHeard !== undefined)).toHaveLength(1_000);
  });

  it('a change a sweep after the last one saved is saved at once again', async () => {
    const { clock, saves, supervisor } = rig(2);
    supervisor.heard({ deviceId: 'B0', source: 'mqtt', at: clock.now });
    await turn();
    expect(saves.length).toBe(1);
    clock.now = SWEEP_MS;
    supervisor.heard({ deviceId: 'B1', source: 'mqtt', at: clock.now });
    await turn();
    expect(saves.length).toBe(2);
    expect(saves.at(-1)!.devices.B1?.lastHeard).toBeDefined();
  });

  it('a change that waits for the sweep is saved by the daemon stopping before it', async () => {
    const { clock, saves, supervisor } = rig(2);
    supervisor.heard({ deviceId: 'B0', source: 'mqtt', at: clock.now });
    clock.now = 100;
    supervisor.heard({ deviceId: 'B1', source: 'mqtt', at: clock.now });
    await supervisor.stop();
    expect(saves.at(-1)!.devices.B1?.lastHeard).toBeDefined();
  });
});
