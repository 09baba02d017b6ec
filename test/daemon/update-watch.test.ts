import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fs from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { buildStatus, type StatusInputs } from '../../src/daemon/status.js';
import { healthyStatusInputs } from '../support/status-inputs.js';
import { healthOf } from '../../src/mqtt/health.js';

vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  return { ...real, statSync: vi.fn(real.statSync), readFileSync: vi.fn(real.readFileSync) };
});
// The suite's workers keep their modules from one file to the next: a watch and a record reader
// loaded by an earlier file would hold the real node:fs, and their stats and reads would go
// uncounted here. Loaded afresh, they hold the counted one.
vi.resetModules();
const { UPDATE_LOOK_MS, UpdateWatch } = await import('../../src/daemon/update-watch.js');
const { UPDATE_FILE } = await import('../../src/update/record.js');

// update.json changes while the daemon runs: a person's `status` reads it afresh, the sampled
// view (health every second) looks at most every 30 s, a stat first, and reads only on a change.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const AT = '2026-11-29T04:00:00.000Z';
const probation = { state: 'probation', version: '0.3.2', previous: '0.3.1', reason: null, at: AT } as const;
const rolledBack = { ...probation, state: 'rolled-back', reason: 'not ready within 150 s', at: '2026-11-29T04:03:00.000Z' } as const;

function rig() {
  const stateDir = mkdtempSync(join(tmpdir(), 'panic-pair-update-watch-'));
  dirs.push(stateDir);
  let now = 1_000;
  const warned: string[] = [];
  const watch = new UpdateWatch({ stateDir, logger: { warn: (fields) => warned.push(fields.problem) }, monotonic: () => now });
  let writes = 0;
  return {
    watch,
    warned,
    advance(ms: number) {
      now += ms;
    },
    /** As the judge writes it: a temporary file renamed into place. */
    write(content: unknown) {
      const temporary = join(stateDir, `.update.json.${writes++}`);
      writeFileSync(temporary, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o644 });
      renameSync(temporary, join(stateDir, UPDATE_FILE));
    },
    reads: () => vi.mocked(fs.readFileSync).mock.calls.filter(([path]) => String(path).endsWith(UPDATE_FILE)).length,
    stats: () => vi.mocked(fs.statSync).mock.calls.filter(([path]) => String(path).endsWith(UPDATE_FILE)).length,
  };
}

describe('UpdateWatch', () => {
  it('reads afresh at each read(): what a person asking `status` sees', () => {
    const hub = rig();
    expect(hub.watch.read()).toBeNull();
    hub.write(probation);
    expect(hub.watch.read()).toEqual(probation);
    hub.write(rolledBack);
    expect(hub.watch.read()).toEqual(rolledBack);
  });

  it('looks at most every 30 s for the sampled view, and reads the file only when a stat says it changed', () => {
    const hub = rig();
    hub.write(probation);
    const [reads, stats] = [hub.reads(), hub.stats()];
    expect(hub.watch.latest()).toEqual(probation);
    expect(hub.reads() - reads).toBe(1);
    // A second's samples for 30 s: no stat, no read.
    hub.write(rolledBack);
    for (let second = 1; second < UPDATE_LOOK_MS / 1000; second++) {
      hub.advance(1_000);
      expect(hub.watch.latest()).toEqual(probation);
    }
    expect(hub.reads() - reads).toBe(1);
    hub.advance(1_000);
    expect(hub.watch.latest()).toEqual(rolledBack);
    expect(hub.reads() - reads).toBe(2);
    // Unchanged: a stat every 30 s, and no read.
    const statsBefore = hub.stats();
    for (let look = 0; look < 4; look++) {
      hub.advance(UPDATE_LOOK_MS);
      expect(hub.watch.latest()).toEqual(rolledBack);
    }
    expect(hub.stats() - statsBefore).toBe(4);
    expect(hub.reads() - reads).toBe(2);
    expect(hub.stats() - stats).toBeGreaterThan(0);
  });

  it('takes a read() as its latest look: a person asking `status` brings the health up to date', () => {
    const hub = rig();
    expect(hub.watch.latest()).toBeNull();
    hub.write(rolledBack);
    hub.advance(1_000);
    expect(hub.watch.latest()).toBeNull();
    expect(hub.watch.read()).toEqual(rolledBack);
    expect(hub.watch.latest()).toEqual(rolledBack);
  });

  it('sees the file removed, and warns once for a bad file until it changes', () => {
    const hub = rig();
    hub.write('{"state":');
    expect(hub.watch.read()).toBeNull();
    expect(hub.watch.read()).toBeNull();
    hub.advance(UPDATE_LOOK_MS);
    expect(hub.watch.latest()).toBeNull();
    expect(hub.warned).toEqual(['not JSON']);
    hub.write(probation);
    expect(hub.watch.read()).toEqual(probation);
    hub.write('{"state":');
    expect(hub.watch.read()).toBeNull();
    expect(hub.warned).toEqual(['not JSON', 'not JSON']);
    rmSync(join(dirs.at(-1)!, UPDATE_FILE));
    hub.advance(UPDATE_LOOK_MS);
    expect(hub.watch.latest()).toBeNull();
  });
});

describe('status and health with an update record', () => {
  const inputs = (update: StatusInputs['update']): StatusInputs => healthyStatusInputs({ version: '0.3.1', startedAt: AT, update });

  it('holds update null and stays healthy without a record, on probation, or kept', () => {
    expect(buildStatus(inputs(null))).toMatchObject({ healthy: true, problems: [], update: null });
    expect(buildStatus(inputs(probation))).toMatchObject({ healthy: true, problems: [], update: probation });
    const kept = { ...probation, state: 'kept' } as const;
    expect(buildStatus(inputs(kept))).toMatchObject({ healthy: true, problems: [], update: kept });
  });

  it('is degraded by a rollback, with the problem naming both versions and the reason; the health says the same', () => {
    const status = buildStatus(inputs(rolledBack));
    expect(status).toMatchObject({ healthy: false, problems: ['update to 0.3.2 rolled back to 0.3.1: not ready within 150 s'], update: rolledBack });
    expect(healthOf(status)).toMatchObject({ healthy: false, problems: status.problems, update: rolledBack });
  });

  it('stays degraded while a later version is on probation, its update the later one', () => {
    const later = { ...probation, version: '0.3.3', rolledBack: { version: '0.3.2', previous: '0.3.1', reason: 'not ready within 150 s', at: AT } };
    const status = buildStatus(inputs(later));
    expect(status).toMatchObject({ healthy: false, problems: ['update to 0.3.2 rolled back to 0.3.1: not ready within 150 s'] });
    expect(status.update).toEqual({ ...probation, version: '0.3.3' });
  });
});
