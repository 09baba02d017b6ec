import { describe, expect, it } from 'vitest';
import { FleetFacts } from '../../src/fleet/hub-facts.js';
import { rowOf, rowSignature, STALE_AFTER_MS, worstFirst, type HubRow } from '../../src/fleet/hub-row.js';
import { fleetTable, rowLine } from '../../src/fleet/fleet-text.js';
import { clockTime } from '../../src/fleet/words.js';

// A hub's row from what the central broker said: each state and its
// words, what wins over what, the order, and payloads that break the schema.

const NOW = Date.parse('2026-11-26T14:30:00.000Z');

function health(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    version: '0.1.0',
    healthy: true,
    problems: [],
    ble: 'scanning',
    mqtt: 'connected',
    devices: { total: 3, linked: 3, linking: 0, rejected: 0, failed: 0 },
    uptimeSeconds: 7_500,
    at: new Date(NOW - 20_000).toISOString(),
    ...fields,
  });
}

/** The rows after these messages: [topic, payload, live?]. */
function rows(messages: Array<[string, string, boolean?]>, now = NOW): HubRow[] {
  const facts = new FleetFacts();
  for (const [topic, payload, live] of messages) facts.take(topic, Buffer.from(payload), live ?? false, now - 60_000);
  return [...facts.hubs.values()].map((hub) => rowOf(hub, now)).sort(worstFirst);
}

function row(messages: Array<[string, string, boolean?]>, now = NOW): HubRow {
  const [only, ...rest] = rows(messages, now);
  expect(rest).toEqual([]);
  return only!;
}

const up = (hub: string): Array<[string, string]> => [
  [`hubs/${hub}/status`, 'online'],
  [`hubs/${hub}/bridge/state`, '1'],
];

describe("a hub's row", () => {
  it('is healthy with a fresh health and no problem, and says its version and uptime', () => {
    expect(row([...up('hub-1'), ['hubs/hub-1/health', health()]])).toMatchObject({
      hub: 'hub-1', state: 'healthy', cause: 'none', reason: 'up 2 h 5 min', version: '0.1.0', daemon: 'online', bridge: 'up', buttons: null,
    });
  });

  it("is offline by its bridge's 0 even while its status still says online", () => {
    const retained = row([['hubs/hub-1/status', 'online'], ['hubs/hub-1/bridge/state', '0'], ['hubs/hub-1/health', health()]]);
    expect(retained).toMatchObject({ state: 'offline', cause: 'bridge-down', daemon: 'online', bridge: 'down' });
    expect(retained.reason).toBe(`its bridge is down; last health ${clockTime(NOW - 20_000, NOW)}`);
    // Seen as it happened (--watch): the time it went down.
    const live = row([...up('hub-1'), ['hubs/hub-1/health', health()], ['hubs/hub-1/bridge/state', '0', true]]);
    expect(live.reason).toBe(`its bridge went down ${clockTime(NOW - 60_000, NOW)}`);
  });

  it("is offline by its daemon's last will, and says it cannot tell a stop from a death", () => {
    const offline = row([['hubs/hub-1/status', 'offline'], ['hubs/hub-1/bridge/state', '1'], ['hubs/hub-1/health', health()]]);
    expect(offline).toMatchObject({ state: 'offline', cause: 'daemon-offline' });
    expect(offline.reason).toMatch(/^its daemon is not running \(stopped, or died: its last will\); last health \d\d:\d\d$/);
  });

  it('is stale when its last health is older than 3 minutes, or when it has none', () => {
    const old = row([...up('hub-1'), ['hubs/hub-1/health', health({ at: new Date(NOW - STALE_AFTER_MS - 60_000).toISOString() })]]);
    expect(old).toMatchObject({ state: 'stale', cause: 'health-old' });
    expect(old.reason).toMatch(/^no health for 4 min 0 s \(last health \d\d:\d\d\)/);
    expect(row(up('hub-1'))).toMatchObject({ state: 'stale', cause: 'no-health' });
    // Just inside the 3 minutes: still judged by what it says.
    expect(row([...up('hub-1'), ['hubs/hub-1/health', health({ at: new Date(NOW - STALE_AFTER_MS + 1_000).toISOString() })]]).state).toBe('healthy');
  });

  it('is unhealthy with its problems in its own words, and its buttons', () => {
    const buttons = { linked: 3, online: 1, missing: 1, unknown: 0, unsupervised: 1, batteryLow: 1 };
    const problems = ['button 7F3A9C missing for 2 h 10 min (last heard 09:14)', 'button 2B4D6F battery 15 % (low)'];
    const sick = row([...up('hub-0107'), ['hubs/hub-0107/health', health({ healthy: false, problems, buttons })]]);
    expect(sick).toMatchObject({ state: 'unhealthy', cause: 'problems', buttons, problems });
    expect(rowLine(sick)).toBe(
      'hub-0107 unhealthy: button 7F3A9C missing for 2 h 10 min (last heard 09:14); button 2B4D6F battery 15 % (low) (version 0.1.0; 3 buttons, 1 missing, 1 battery low, 1 unsupervised)',
    );
  });

  it('is unreadable for a payload that is not JSON, breaks the schema, or is of another shape', () => {
    const cases: Array<[Array<[string, string]>, RegExp]> = [
      [[['hubs/h/health', '{"version": "0.1.0",']], /^unreadable health: not JSON$/],
      [[['hubs/h/health', '[1,2]']], /^unreadable health: not a JSON object$/],
      [[['hubs/h/health', health({ problems: 'none' })]], /^unreadable health: problems: /],
      [[['hubs/h/health', health({ at: 'yesterday' })]], /^unreadable health: at: /],
      [[['hubs/h/health', health({ buttons: { linked: 1 } })]], /^unreadable health: buttons\.online: /],
      [[['hubs/h/health', health({ devices: { total: -1, linked: 0, linking: 0, rejected: 0, failed: 0 } })]], /^unreadable health: devices\.total: /],
      [[['hubs/h/health', health()], ['hubs/h/status', 'maybe']], /^unreadable status: "maybe" \(expected online or offline\)$/],
      [[['hubs/h/health', health()], ['hubs/h/bridge/state', 'x'.repeat(100)]], /^unreadable bridge state: "x{40}\.\.\." \(100 bytes\)/],
      [[['hubs/has space/health', health()]], /^not a hub id: "has space"/],
      [[['hubs/h/health', 'x'.repeat(70_000)]], /^unreadable health: 70000 bytes, over the 65536 a health may take$/],
    ];
    for (const [messages, reason] of cases) {
      const bad = row(messages);
      expect(bad.state, reason.source).toBe('unreadable');
      expect(bad.reason).toMatch(reason);
    }
  });

  it('is rolled back when its latest update was, showing both versions; a probation or a kept one is only its update', () => {
    const problem = 'update to 0.3.2 rolled back to 0.3.1: not ready within 150 s';
    const update = { state: 'rolled-back', version: '0.3.2', previous: '0.3.1', reason: 'not ready within 150 s', at: '2026-11-29T04:03:00.000Z' };
    const back = row([...up('hub-9'), ['hubs/hub-9/health', health({ version: '0.3.1', healthy: false, problems: [problem], update })]]);
    expect(back).toMatchObject({ state: 'rolled-back', cause: 'rolled-back', reason: problem, version: '0.3.1', update });
    expect(rowLine(back)).toBe(`hub-9 rolled back: ${problem} (version 0.3.1 (rolled back from 0.3.2))`);
    expect(fleetTable([back]).split('\n')[1]).toMatch(/^hub-9 +rolled back +0\.3\.1 \(rolled back from 0\.3\.2\) +- +update to 0\.3\.2 rolled back/);
    // A hub that names no problem beside it still says which rollback.
    expect(row([['hubs/hub-9/health', health({ version: '0.3.1', update })]]).reason).toBe(problem);
    // Offline or stale comes first, but the version still says it.
    const gone = row([['hubs/hub-9/status', 'offline'], ['hubs/hub-9/health', health({ version: '0.3.1', healthy: false, problems: [problem], update })]]);
    expect(gone.state).toBe('offline');
    expect(rowLine(gone)).toMatch(/\(version 0\.3\.1 \(rolled back from 0\.3\.2\)\)$/);

    const probation = { ...update, state: 'probation', version: '0.3.3', reason: null };
    const trying = row([['hubs/hub-9/health', health({ version: '0.3.3', healthy: false, problems: [problem], update: probation })]]);
    expect(trying).toMatchObject({ state: 'unhealthy', cause: 'problems', reason: problem, version: '0.3.3', update: probation });
    expect(rowLine(trying)).toMatch(/\(version 0\.3\.3\)$/);
    const kept = { ...probation, state: 'kept' };
    expect(row([['hubs/hub-9/health', health({ version: '0.3.3', update: kept })]])).toMatchObject({ state: 'healthy', update: kept });
    expect(row([['hubs/hub-9/health', health({ update: null })]])).toMatchObject({ state: 'healthy', update: null });
  });

  it('is unreadable for an update that breaks the schema', () => {
    const bad = row([['hubs/h/health', health({ update: { state: 'rolled-back', version: '0.3 2', previous: '0.3.1', reason: null, at: '2026-11-29T04:03:00.000Z' } })]]);
    expect(bad).toMatchObject({ state: 'unreadable', cause: 'bad-health', reason: 'unreadable health: update.version: must be a Debian version: 1 to 64 of A-Z a-z 0-9 . + ~ : -' });
  });

  it('takes a health without buttons (a hub older than supervision) and ignores fields it does not know', () => {
    expect(row([['hubs/old/health', health({ buttons: undefined, somethingNew: { a: 1 } })]])).toMatchObject({ state: 'healthy', buttons: null, update: null });
  });

  it('carries its health’s stamp and uptime, null without a health', () => {
    expect(row([...up('hub-1'), ['hubs/hub-1/health', health()]])).toMatchObject({ healthAt: new Date(NOW - 20_000).toISOString(), uptimeSeconds: 7_500 });
    expect(row(up('hub-1'))).toMatchObject({ healthAt: null, uptimeSeconds: null, version: null });
  });

  it('says when it saw none of its health, and when it saw its daemon go offline', () => {
    expect(row([['hubs/hub-1/bridge/state', '0']]).reason).toBe('its bridge is down; no health seen');
    expect(row(up('hub-1')).reason).toBe('no health received: its daemon has published none (or one too large for this reader)');
    const live = row([...up('hub-1'), ['hubs/hub-1/status', 'offline', true]]);
    expect(live.reason).toBe(`its daemon went offline ${clockTime(NOW - 60_000, NOW)} (stopped, or died: its last will)`);
  });

  it('is stale only past 3 minutes: a health exactly 3 minutes old still counts', () => {
    expect(row([...up('hub-1'), ['hubs/hub-1/health', health({ at: new Date(NOW - STALE_AFTER_MS).toISOString() })]]).state).toBe('healthy');
  });

  it('is unhealthy with a problem even when it calls itself healthy, and says so when it calls itself unhealthy naming none', () => {
    expect(row([['hubs/h/health', health({ problems: ['the API is failing'] })]])).toMatchObject({ state: 'unhealthy', reason: 'the API is failing' });
    expect(row([['hubs/h/health', health({ healthy: false })]])).toMatchObject({ state: 'unhealthy', reason: 'reports itself unhealthy, naming no problem' });
  });

  it('rolled back, gives every problem it names, the rollback among them', () => {
    const update = { state: 'rolled-back', version: '0.3.2', previous: '0.3.1', reason: 'not ready within 150 s', at: '2026-11-29T04:03:00.000Z' };
    const problems = ['update to 0.3.2 rolled back to 0.3.1: not ready within 150 s', 'button 7F3A9C missing for 2 h'];
    expect(row([['hubs/h/health', health({ healthy: false, problems, update })]]).reason).toBe(
      'update to 0.3.2 rolled back to 0.3.1: not ready within 150 s; button 7F3A9C missing for 2 h',
    );
  });

  it('names the cause of each unreadable row', () => {
    expect(row([['hubs/has space/health', health()]]).cause).toBe('bad-id');
    expect(row([['hubs/h/health', 'nope']]).cause).toBe('bad-health');
    expect(row([['hubs/h/status', 'maybe']]).cause).toBe('bad-status');
    expect(row([['hubs/h/bridge/state', '2']]).cause).toBe('bad-bridge');
  });

  it('forgets a retained message cleared (an empty payload), and the hub with its last one', () => {
    expect(rows([...up('gone'), ['hubs/gone/status', ''], ['hubs/gone/bridge/state', '']])).toEqual([]);
  });

  it('changes its signature when its state or words change, not when it only ages', () => {
    const messages: Array<[string, string]> = [...up('hub-1'), ['hubs/hub-1/health', health()]];
    expect(rowSignature(row(messages))).toBe(rowSignature(row(messages, NOW + 60_000)));
    expect(rowSignature(row(messages))).not.toBe(rowSignature(row(messages, NOW + STALE_AFTER_MS)));
    // A probation turned kept is a change, though the row stays healthy.
    const update = { state: 'probation', version: '0.1.0', previous: '0.0.9', reason: null, at: '2026-11-29T04:00:00.000Z' };
    const probation = row([...up('hub-1'), ['hubs/hub-1/health', health({ update })]]);
    const kept = row([...up('hub-1'), ['hubs/hub-1/health', health({ update: { ...update, state: 'kept' } })]]);
    expect(rowSignature(probation)).not.toBe(rowSignature(kept));
  });
});

describe('the rows', () => {
  it('come worst first, offline, stale, unreadable, rolled back, unhealthy, healthy, then by hub id', () => {
    const update = { state: 'rolled-back', version: '0.3.2', previous: '0.1.0', reason: 'not ready within 150 s', at: '2026-11-29T04:03:00.000Z' };
    const all = rows([
      ...up('h-healthy'), ['hubs/h-healthy/health', health()],
      ...up('h-back'), ['hubs/h-back/health', health({ healthy: false, problems: ['update to 0.3.2 rolled back to 0.1.0: not ready within 150 s'], update })],
      ...up('h-sick'), ['hubs/h-sick/health', health({ healthy: false, problems: ['the API is failing'] })],
      ['hubs/h-bad/health', 'nope'],
      ...up('h-stale'),
      ['hubs/h-b-off/bridge/state', '0'],
      ['hubs/h-a-off/status', 'offline'],
    ]);
    expect(all.map((r) => `${r.state} ${r.hub}`)).toEqual(['offline h-a-off', 'offline h-b-off', 'stale h-stale', 'unreadable h-bad', 'rolled-back h-back', 'unhealthy h-sick', 'healthy h-healthy']);
    expect(fleetTable(all).trimEnd().split('\n').at(-1)).toBe('7 hubs: 2 offline, 1 stale, 1 unreadable, 1 rolled back, 1 unhealthy, 1 healthy');
  });

  it('of one state compare by hub id alone', () => {
    const [a, b] = rows([...up('hub-a'), ...up('hub-b')]);
    expect([a!.hub, b!.hub]).toEqual(['hub-a', 'hub-b']);
    expect(worstFirst(a!, b!)).toBe(-1);
    expect(worstFirst(b!, a!)).toBe(1);
    expect(worstFirst(a!, { ...a! })).toBe(0);
  });

  it('never print control characters a hub sent (a terminal escape in a problem)', () => {
    const sick = row([['hubs/h/health', health({ healthy: false, problems: ['\u001b[2J\u001b]0;owned\u0007 cleared'] })]]);
    expect(fleetTable([sick])).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(rowLine(sick)).toContain('?[2J?]0;owned? cleared');
  });
});

describe('whatever the central broker holds', () => {
  it('makes one row a hub and never throws: random payloads and topic levels', () => {
    const facts = new FleetFacts();
    // What the broker holds, kept here as a reader would: each hub's topics whose last payload
    // was not empty (an empty one clears it). A hub is a row while it has one.
    const held = new Map<string, Set<string>>();
    const kinds = ['health', 'status', 'bridge/state'];
    const seeds = [health(), health({ buttons: { linked: 1, online: 1, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 } }), 'online', 'offline', '0', '1'];
    let state = 42;
    const next = (below: number): number => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state % below;
    };
    for (let i = 0; i < 5_000; i++) {
      const seed = Buffer.from(seeds[next(seeds.length)]!);
      // Cut, flip bytes in, or replace a seed: JSON broken at any point, bytes that are not UTF-8.
      const payload = next(3) === 0 ? seed.subarray(0, next(seed.length + 1)) : Buffer.from(seed.map((byte) => (next(20) === 0 ? next(256) : byte)));
      const level = next(4) === 0 ? Buffer.from(Array.from({ length: next(80) }, () => next(256))).toString('utf8') : `hub-${next(50)}`;
      const hub = level.replace(/[/#+\u0000]/g, '_');
      const kind = kinds[next(3)]!;
      facts.take(`hubs/${hub}/${kind}`, payload, next(2) === 0, NOW);
      const topics = held.get(hub) ?? new Set<string>();
      if (payload.length === 0) topics.delete(kind);
      else topics.add(kind);
      if (topics.size === 0) held.delete(hub);
      else held.set(hub, topics);
    }
    const all = [...facts.hubs.values()].map((hub) => rowOf(hub, NOW));
    expect(all.map((one) => one.hub).sort()).toEqual([...held.keys()].sort());
    for (const one of all) expect(['offline', 'stale', 'unreadable', 'rolled-back', 'unhealthy', 'healthy']).toContain(one.state);
    // The random levels made rows too, not only the hub-N ones.
    expect(all.some((one) => !/^hub-\d+$/.test(one.hub))).toBe(true);
    expect(() => fleetTable(all.sort(worstFirst))).not.toThrow();
  });
});
