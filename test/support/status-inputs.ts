import type { StatusInputs } from '../../src/daemon/status.js';

// What buildStatus is given for a hub with nothing wrong, for tests that change one thing of it.
export function healthyStatusInputs(overrides: Partial<StatusInputs> = {}): StatusInputs {
  return {
    version: '0.1.0',
    pid: 1,
    startedAt: '2026-11-27T10:00:00.000Z',
    entitlement: { customerId: 42, entitled: true },
    household: [42],
    token: 'accepted',
    api: { state: 'ok' },
    mqtt: 'connected',
    ble: 'scanning',
    bleRequired: false,
    store: { ok: true, path: '/var/lib/panic-pair/pairings.json' },
    unsavedLinks: 0,
    devices: [],
    autoPair: false,
    counters: { announcements: 0, dropped: 0, links: 0, apiErrors: 0, batteryDropped: 0, forged: 0, replayed: 0, plain: 0 },
    ...overrides,
  };
}
