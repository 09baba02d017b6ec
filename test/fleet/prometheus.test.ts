import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FleetFacts } from '../../src/fleet/hub-facts.js';
import { rowOf, worstFirst } from '../../src/fleet/hub-row.js';
import { prometheusText } from '../../src/fleet/prometheus.js';
import { ROOT } from '../support/binary.js';
import { checkWithPromtool, promtool } from '../support/promtool.js';

// `fleet --prometheus` (CONTRACT.md section 16) read back by Prometheus's own checker,
// `promtool check metrics` (Debian's `prometheus` package), hostile hub ids and versions included.

const NOW = Date.parse('2026-11-26T14:30:00.000Z');
function text(): string {
  const facts = new FleetFacts();
  const health = (fields: Record<string, unknown>): Buffer =>
    Buffer.from(
      JSON.stringify({
        version: '0.1.0', healthy: true, problems: [], ble: 'scanning', mqtt: 'connected',
        devices: { total: 3, linked: 3, linking: 0, rejected: 0, failed: 0 }, uptimeSeconds: 60, at: new Date(NOW - 30_000).toISOString(), ...fields,
      }),
    );
  facts.take('hubs/hub-1/health', health({ buttons: { linked: 3, online: 1, missing: 1, unknown: 0, unsupervised: 1, batteryLow: 1 } }), false, NOW);
  facts.take('hubs/hub-2/bridge/state', Buffer.from('0'), false, NOW);
  facts.take('hubs/hub-2/health', health({ version: '0.2.0-rc.1 "canary" \\ \n' }), false, NOW);
  facts.take('hubs/a"b\\c\nd/health', Buffer.from('nope'), false, NOW);
  const rollback = { state: 'rolled-back', version: '0.3.2', previous: '0.3.1', reason: 'not ready within 150 s', at: new Date(NOW - 60_000).toISOString() };
  facts.take('hubs/hub-3/health', health({ version: '0.3.1', healthy: false, problems: ['update to 0.3.2 rolled back to 0.3.1: not ready within 150 s'], update: rollback }), false, NOW);
  return prometheusText([...facts.hubs.values()].map((hub) => rowOf(hub, NOW)).sort(worstFirst), NOW);
}

describe.skipIf(promtool === undefined)('fleet --prometheus, read by promtool', () => {
  it('passes promtool check metrics', () => {
    expect(checkWithPromtool(text())).toEqual({ code: 0, output: '' });
  });
});

// What the text says needs no promtool to check, and runs wherever the suite does.
describe('fleet --prometheus', () => {
  it('escapes hostile labels as the exposition format says', () => {
    const output = text();
    expect(output).toContain('panic_pair_hub_info{hub="hub-2",version="0.2.0-rc.1 \\"canary\\" \\\\ \\n"} 1');
    expect(output).toContain('panic_pair_hub_up{hub="a\\"b\\\\c\\nd"} 1');
  });

  it("holds each hub's up, healthy, state, rollback, buttons, version and health age", () => {
    const samples = new Map(
      text()
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'))
        .map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))]),
    );
    expect(samples.get('panic_pair_hub_up{hub="hub-1"}')).toBe(1);
    expect(samples.get('panic_pair_hub_healthy{hub="hub-1"}')).toBe(1);
    expect(samples.get('panic_pair_hub_up{hub="hub-2"}')).toBe(0);
    expect(samples.get('panic_pair_hub_state{hub="hub-2",state="offline"}')).toBe(1);
    expect(samples.get('panic_pair_hub_state{hub="hub-2",state="healthy"}')).toBe(0);
    expect(samples.get('panic_pair_hub_buttons{hub="hub-1",state="missing"}')).toBe(1);
    expect(samples.get('panic_pair_hub_buttons{hub="hub-1",state="battery_low"}')).toBe(1);
    expect(samples.get('panic_pair_hub_buttons{hub="hub-1",state="linked"}')).toBe(3);
    expect(samples.get('panic_pair_hub_info{hub="hub-1",version="0.1.0"}')).toBe(1);
    expect(samples.get('panic_pair_hub_health_age_seconds{hub="hub-1"}')).toBe(30);
    // A rolled-back hub: up, not healthy, its own state, and the gauge; the others 0, an old hub's too.
    expect(samples.get('panic_pair_hub_rolled_back{hub="hub-3"}')).toBe(1);
    expect(samples.get('panic_pair_hub_state{hub="hub-3",state="rolled-back"}')).toBe(1);
    expect(samples.get('panic_pair_hub_up{hub="hub-3"}')).toBe(1);
    expect(samples.get('panic_pair_hub_healthy{hub="hub-3"}')).toBe(0);
    expect(samples.get('panic_pair_hub_info{hub="hub-3",version="0.3.1"}')).toBe(1);
    expect(samples.get('panic_pair_hub_rolled_back{hub="hub-1"}')).toBe(0);
    expect(samples.get('panic_pair_hub_rolled_back{hub="hub-2"}')).toBe(0);
    expect(samples.get('panic_pair_hub_state{hub="hub-1",state="rolled-back"}')).toBe(0);
    // A hub too old to report buttons has none, rather than zeros that would look like no button missing.
    expect([...samples.keys()].some((key) => key.startsWith('panic_pair_hub_buttons{hub="hub-2"'))).toBe(false);
  });
});

describe.skipIf(promtool === undefined)("docs/fleet.md's alert rules", () => {
  it('pass promtool check rules, each on a metric fleet prints', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'fleet.md'), 'utf8');
    const rules = /```yaml\n(groups:[\s\S]*?)```/.exec(doc)?.[1];
    expect(rules).toBeDefined();
    const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-rules-'));
    try {
      const file = path.join(dir, 'panic-pair.rules.yml');
      writeFileSync(file, rules!);
      const checked = spawnSync(promtool!, ['check', 'rules', file], { encoding: 'utf8', timeout: 30_000 });
      expect(checked.status, `${checked.stdout}${checked.stderr}`).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const printed = new Set([...text().matchAll(/^# TYPE (\S+) gauge$/gm)].map((match) => match[1]));
    const used = new Set([...rules!.matchAll(/\b(panic_pair_\w+)/g)].map((match) => match[1]));
    expect([...used].filter((name) => !printed.has(name))).toEqual([]);
  });
});
