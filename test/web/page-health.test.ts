import { describe, expect, it } from 'vitest';
import { CLOCK_UNSET } from '../../src/clock.js';
import { buildStatus, type StatusInputs } from '../../src/daemon/status.js';
import type { DeviceRow } from '../../src/supervision/types.js';
import { pageStatus } from '../../src/web/page-health.js';
import { linkedRecord } from '../control/fake-daemon.js';
import { healthyStatusInputs } from '../support/status-inputs.js';

// The page gets each problem of `status` as a kind with its figures,
// never status's English sentence: every problem the daemon's own buildStatus can raise is
// known here by its kind, in the same order, so none reaches the page as an unnamed "other".

const NOW = Date.parse('2026-11-27T10:00:00.000Z');
const silent = new Date(NOW - 7_800_000).toISOString();
const rows: DeviceRow[] = [
  { ...linkedRecord('MISSING1', 1), supervision: 'missing', lastHeard: silent, battery: 12, batteryLow: true, deadlineSeconds: 3600 },
];

function inputs(overrides: Partial<StatusInputs>): StatusInputs {
  return healthyStatusInputs({ startedAt: new Date(NOW).toISOString(), ...overrides });
}

describe("the page's health", () => {
  it('names every problem of status by its kind, with its figures and without its words', () => {
    const status = buildStatus(
      inputs({
        clockUnset: true,
        update: { state: 'rolled-back', version: '0.3.2', previous: '0.3.1', reason: 'not ready within 150 s', at: '2026-11-27T09:00:00.000Z' },
        token: 'refused',
        entitlement: { customerId: 42, entitled: false },
        api: { state: 'failing', lastError: 'HTTP 503 from https://api.example.com' },
        mqtt: 'disconnected',
        mqttDetail: { reason: 'ECONNREFUSED', refusals: { subscriptions: [{ filter: 'panic/announce/#', reason: 'not authorized' }], publishes: [], publishesRefused: 0 } },
        ble: 'blocked',
        bleReason: 'rfkill',
        bleRequired: true,
        store: { ok: false, path: '/x', error: 'ENOSPC' },
        unsavedLinks: 2,
        buttonProblems: [
          'button MISSING1 missing for 2 h 10 min (last heard 07:50)',
          'button MISSING1 battery 12 % (low)',
          'button KEYED1 imitated: reports of KEYED1 failed authentication: something may be imitating it',
        ],
      }),
    );
    const page = pageStatus(status, rows, NOW);
    expect(page.problems).toEqual([
      { kind: 'clock' },
      { kind: 'update-rolled-back', version: '0.3.2', previous: '0.3.1' },
      { kind: 'token-refused' },
      { kind: 'not-entitled', customerId: 42 },
      { kind: 'api-failing' },
      { kind: 'mqtt-down' },
      { kind: 'mqtt-refused', topic: 'panic/announce/#' },
      { kind: 'ble', state: 'blocked' },
      { kind: 'store' },
      { kind: 'unsaved', count: 2 },
      { kind: 'button-missing', deviceId: 'MISSING1', silentMs: 7_800_000, lastHeard: silent },
      { kind: 'battery-low', deviceId: 'MISSING1', battery: 12 },
      { kind: 'imitated', deviceId: 'KEYED1' },
    ]);
    expect(status.problems).toHaveLength(page.problems.length);
    // None of status's sentences or details travel to the page.
    const sent = JSON.stringify(page);
    for (const words of [CLOCK_UNSET, 'not ready within 150 s', 'HTTP 503', 'ECONNREFUSED', 'rfkill', 'ENOSPC', 'not authorized', 'holds no active subscription', 'failed authentication']) expect(sent).not.toContain(words);
  });

  it('names a rollback by its two versions, an epoch or no reason included, and leaves the judge\'s reason out', () => {
    const rollback = { state: 'rolled-back', version: '1:0.3.2', previous: '1:0.3.1', reason: null, at: '2026-11-27T09:00:00.000Z' } as const;
    expect(pageStatus(buildStatus(inputs({ update: rollback })), [], NOW).problems).toEqual([{ kind: 'update-rolled-back', version: '1:0.3.2', previous: '1:0.3.1' }]);
    const page = pageStatus(buildStatus(inputs({ update: { ...rollback, reason: 'refused the store the version before wrote' } })), [], NOW);
    expect(page.problems).toEqual([{ kind: 'update-rolled-back', version: '1:0.3.2', previous: '1:0.3.1' }]);
    expect(page).not.toHaveProperty('update');
  });

  it('counts a problem it does not know yet as other, so the page never calls a degraded hub healthy', () => {
    const status = { ...buildStatus(inputs({})), healthy: false, problems: ['something new the daemon says'] };
    const page = pageStatus(status, [], NOW);
    expect(page).toMatchObject({ healthy: false, problems: [{ kind: 'other' }] });
  });
});
