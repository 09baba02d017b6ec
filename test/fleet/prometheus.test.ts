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

// `fleet --prometheus` read back by Prometheus's own checker, `promtool check metrics` (Debian's
// `prometheus` package), hostile hub ids and versions included; and the alert rules an operator
// copies from docs/operator/monitoring.md, checked and run by `promtool` on what `fleet` prints.

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
  facts.take('hubs/hub-4/health', health({ healthy: false, problems: ['the API refused the token (401): write a valid token to /etc/panic-pair/api-token, then restart (systemctl restart panic-pair)'] }), false, NOW);
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

const RULES_DOC = path.join(ROOT, 'docs', 'operator', 'monitoring.md');

/** The rules file the page gives: its YAML block that starts with `groups:`. */
function documentedRules(): string {
  const rules = /```yaml\n(groups:[\s\S]*?)```/.exec(readFileSync(RULES_DOC, 'utf8'))?.[1];
  if (rules === undefined) throw new Error(`${RULES_DOC} holds no YAML block of alert rules`);
  return rules;
}

/** `promtool <args>` in a folder holding the rules as panic-pair.rules.yml and any other files given. */
function promtoolWithRules(args: string[], files: Record<string, string> = {}): { status: number | null; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-rules-'));
  try {
    writeFileSync(path.join(dir, 'panic-pair.rules.yml'), documentedRules());
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
    const run = spawnSync(promtool!, args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(promtool === undefined)("docs/operator/monitoring.md's alert rules", () => {
  it('pass promtool check rules, each on a metric fleet prints', () => {
    const checked = promtoolWithRules(['check', 'rules', 'panic-pair.rules.yml']);
    expect(checked.status, checked.output).toBe(0);
    const printed = new Set([...text().matchAll(/^# TYPE (\S+) gauge$/gm)].map((match) => match[1]));
    const used = new Set([...documentedRules().matchAll(/\b(panic_pair_\w+)/g)].map((match) => match[1]));
    expect([...used].filter((name) => !printed.has(name))).toEqual([]);
  });

  it('fire on what fleet --prometheus prints: every hub not healthy, and the missing button', () => {
    // Each sample of the reading, held for 20 minutes, as cron's file every minute would hold it
    // (hostile labels left out: promtool's series notation is not the exposition format's).
    const series = text()
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#') && !line.includes('\\'))
      .map((line) => ({ series: line.slice(0, line.lastIndexOf(' ')), values: `${line.slice(line.lastIndexOf(' ') + 1)}x20` }));
    const notHealthy = (hub: string, state: string) => ({ exp_labels: { hub, state }, exp_annotations: { summary: `hub ${hub} is ${state} (panic-pair fleet says why)` } });
    // YAML is a superset of JSON: promtool reads this as its test file.
    const tests = JSON.stringify({
      rule_files: ['panic-pair.rules.yml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: series,
          alert_rule_test: [
            // hub-1 says it is healthy (its counts show a missing button); the others are offline, rolled back, unhealthy.
            {
              eval_time: '15m',
              alertname: 'PanicPairHubUnhealthy',
              exp_alerts: [notHealthy('hub-2', 'offline'), notHealthy('hub-3', 'rolled-back'), notHealthy('hub-4', 'unhealthy')],
            },
            // Not before its 10 minutes: a passing problem pages no one.
            { eval_time: '9m', alertname: 'PanicPairHubUnhealthy', exp_alerts: [] },
            {
              eval_time: '1m',
              alertname: 'PanicPairButtonMissing',
              exp_alerts: [{ exp_labels: { hub: 'hub-1', state: 'missing' }, exp_annotations: { summary: 'hub hub-1: 1 panic button(s) missing' } }],
            },
          ],
        },
      ],
    });
    const tested = promtoolWithRules(['test', 'rules', 'panic-pair.tests.yml'], { 'panic-pair.tests.yml': tests });
    expect(tested.status, tested.output).toBe(0);
  });
});
