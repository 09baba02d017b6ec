import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubRow } from '../../src/fleet/hub-row.js';
import type { HealthPayload } from '../../src/mqtt/topics.js';
import type { StatusReport } from '../../src/status/status-report.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { fleet } from '../support/fleet-reader.js';
import { renderTemplates, updateEntityFields } from '../support/home-assistant-render.js';
import { observe, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// Where the hub's latest update stands, said everywhere, by a real daemon
// whose update.json the test rewrites as the judge does (a file renamed into place) while it runs.
// Its topic prefix is `hubs/<id>`, the central broker's own layout, so that `panic-pair fleet`
// reads the very health the daemon publishes, on the daemon's broker.

const HA = 'homeassistant';

describe('the latest update, in status, health, fleet and Home Assistant', () => {
  const hubId = `hub-${randomBytes(3).toString('hex')}`;
  let hub: DaemonHarness;
  let watcher: MqttObserver;
  let running: string;
  let writes = 0;

  beforeAll(async () => {
    hub = await startHarness({ prefix: `hubs/${hubId}`, env: { PANIC_PAIR_HOMEASSISTANT: 'true' } });
    watcher = await observe(hub.broker.url, [`hubs/${hubId}/health`, `${HA}/update/#`]);
    running = (await hub.status()).version;
  });
  afterAll(async () => {
    await watcher?.close();
    await hub?.close();
  });

  /** As the judge writes it: a temporary file, renamed over the old one. */
  const write = (content: unknown): void => {
    const temporary = join(hub.stateDir, `.update.json.${writes++}`);
    writeFileSync(temporary, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o644 });
    renameSync(temporary, join(hub.stateDir, 'update.json'));
  };
  const healths = (): HealthPayload[] => watcher.payloads(`hubs/${hubId}/health`).map((text) => JSON.parse(text) as HealthPayload);
  const status = async (): Promise<{ code: number | null; report: StatusReport; text: string }> => {
    const json = await hub.cli(['status', '--json']);
    const text = await hub.cli(['status']);
    expect(text.code).toBe(json.code);
    return { code: json.code, report: JSON.parse(json.stdout) as StatusReport, text: text.stdout };
  };

  it('says none while no update is recorded', async () => {
    const { code, report, text } = await status();
    expect({ code, update: report.update, healthy: report.healthy }).toEqual({ code: 0, update: null, healthy: true });
    expect(text).toMatch(/^update +none recorded$/m);
    await waitFor(() => healths().find((health) => health.update === null && health.healthy), { what: 'a health with no update' });
  });

  it('says a probation at the next status, healthy', async () => {
    const probation = { state: 'probation', version: running, previous: '0.0.9', reason: null, at: '2026-11-29T04:00:00.000Z' };
    write(probation);
    const { code, report, text } = await status();
    expect({ code, update: report.update, problems: report.problems }).toEqual({ code: 0, update: probation, problems: [] });
    expect(text).toMatch(new RegExp(`^update +${running.replace(/\./g, '\\.')} on probation since 2026-11-29T04:00:00\\.000Z \\(the version before: 0\\.0\\.9\\)$`, 'm'));
  });

  it('is degraded by a rollback, naming both versions and the reason, and the health, fleet and Home Assistant follow', async () => {
    const problem = `update to 9.9.9 rolled back to ${running}: not ready within 150 s`;
    const rollback = { state: 'rolled-back', version: '9.9.9', previous: running, reason: 'not ready within 150 s', at: '2026-11-29T04:03:00.000Z', fact: 'Result=timeout' };
    write(rollback);
    const { fact: _fact, ...update } = rollback;
    const { code, report, text } = await status();
    expect({ code, healthy: report.healthy, problems: report.problems, update: report.update }).toEqual({ code: 1, healthy: false, problems: [problem], update });
    expect(text).toMatch(/^update +ROLLED BACK from 9\.9\.9 to .* at 2026-11-29T04:03:00\.000Z: not ready within 150 s$/m);
    expect(text.split('\n').filter((line) => /^problem +/.test(line)).map((line) => line.replace(/^problem +/, ''))).toEqual([problem]);

    // The person's `status` read the file: the health, sampled every second, has it at once.
    const health = await waitFor(() => healths().find((one) => one.update?.state === 'rolled-back'), { timeoutMs: 10_000, what: 'the rolled-back health' });
    expect(health).toMatchObject({ healthy: false, problems: [problem], update });

    const json = await fleet(['--central', hub.broker.address, '--json']);
    expect(json.code, json.stderr).toBe(1);
    const [row] = (JSON.parse(json.stdout) as HubRow[]).filter((one) => one.hub === hubId);
    expect(row).toMatchObject({ state: 'rolled-back', cause: 'rolled-back', version: running, update, problems: [problem] });
    const table = await fleet(['--central', hub.broker.address]);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(new RegExp(`^${hubId} +rolled back +${running.replace(/\./g, '\\.')} \\(rolled back from 9\\.9\\.9\\) `, 'm'));
    const prometheus = await fleet(['--central', hub.broker.address, '--prometheus']);
    expect(prometheus.stdout).toContain(`panic_pair_hub_rolled_back{hub="${hubId}"} 1`);

    const config = await waitFor(() => watcher.messages.find((message) => message.topic.startsWith(`${HA}/update/`) && message.topic.endsWith('/update/config')), { what: "the update entity's config" });
    expect(config.retain).toBe(true);
    const { value_template: template, state_topic: stateTopic } = JSON.parse(config.payload) as { value_template: string; state_topic: string };
    expect(stateTopic).toBe(`hubs/${hubId}/health`);
    const [rendered] = renderTemplates([{ template, payload: JSON.stringify(health) }]);
    expect(updateEntityFields(rendered!)).toEqual({ installed_version: running, latest_version: '9.9.9', release_summary: problem });
  });

  it('notices a later version kept with no one asking, within half a minute, and is healthy again', async () => {
    const kept = { state: 'kept', version: running, previous: '0.0.9', reason: null, at: '2026-11-29T04:30:00.000Z' };
    write(kept);
    const health = await waitFor(() => healths().find((one) => one.update?.state === 'kept'), { timeoutMs: 45_000, what: 'the kept health, from the daemon alone' });
    expect(health).toMatchObject({ healthy: true, problems: [], update: kept });
    expect((await status()).code).toBe(0);
    // Only the hub's entities change its config: never a health, a status or an update.
    expect(watcher.messages.filter((message) => message.topic.endsWith('/update/config'))).toHaveLength(1);
  }, 60_000);

  it('takes a file it cannot read as no update, with a warning that never quotes it, and runs on', async () => {
    write('{"state": "rolled-back", "version": "SECRET-words');
    const { code, report } = await status();
    expect({ code, update: report.update }).toEqual({ code: 0, update: null });
    await waitFor(() => hub.output().includes('the update record cannot be read'), { what: 'the warning' });
    expect(hub.output()).toMatch(/"problem":"not JSON"/);
    expect(hub.output()).not.toContain('SECRET-words');
  });
});
