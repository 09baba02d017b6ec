import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import type { HeardSection } from '../../src/store/schema.js';
import type { DeviceRecord } from '../../src/store/record.js';
import { Supervisor } from '../../src/supervision/supervisor.js';

// A report that changes a button's supervision is saved at once, so that a restart finds it. A
// save writes every button: changes that come while a save is asked for and has not yet read the
// buttons ride on it, so a thousand buttons heard again at once cost one save, not a thousand. On a
// fake monotonic clock, with no sweep.

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
  it('a change of supervision is saved at once, with no sweep', async () => {
    const { clock, saves, supervisor } = rig(2);
    supervisor.heard({ deviceId: 'B0', source: 'mqtt', at: clock.now });
    await turn();
    expect(saves).toHaveLength(1);
    expect(saves[0]!.devices.B0?.lastHeard).toBeDefined();
    clock.now = 100;
    supervisor.heard({ deviceId: 'B1', source: 'mqtt', at: clock.now });
    await turn();
    expect(saves).toHaveLength(2);
    expect(saves[1]!.devices.B1?.lastHeard).toBeDefined();
  });

  it('1,000 buttons heard again at once: their changes ride on one save, each of them in it', async () => {
    const { clock, saves, supervisor, ids } = rig(1_000);
    for (const deviceId of ids) supervisor.heard({ deviceId, source: 'mqtt', at: clock.now });
    await turn();
    expect(saves).toHaveLength(1);
    expect(supervisor.counts().online).toBe(1_000);
    expect(Object.values(saves[0]!.devices).filter((saved) => saved.lastHeard !== undefined)).toHaveLength(1_000);
  });

  it('the daemon stopping saves every change', async () => {
    const { clock, saves, supervisor } = rig(2);
    supervisor.heard({ deviceId: 'B0', source: 'mqtt', at: clock.now });
    clock.now = 100;
    supervisor.heard({ deviceId: 'B1', source: 'mqtt', at: clock.now });
    await supervisor.stop();
    expect(saves.at(-1)!.devices.B1?.lastHeard).toBeDefined();
  });
});
