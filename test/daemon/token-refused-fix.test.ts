import { describe, expect, it } from 'vitest';
import { buildStatus, type StatusInputs } from '../../src/daemon/status.js';

// A refused token's fix, said for where the token comes from: a reload (SIGHUP) reads a token file
// again, but systemd hands the daemon its credential copy only at a start, and the environment is
// read only then too. Under the default install (LoadCredential) the fix is a restart.

function refused(tokenSource?: StatusInputs['tokenSource']): string[] {
  return buildStatus({
    version: '0.1.0',
    pid: 1,
    startedAt: '2026-11-29T05:00:00.000Z',
    entitlement: { customerId: 42, entitled: null },
    household: [42],
    token: 'refused',
    ...(tokenSource === undefined ? {} : { tokenSource }),
    api: { state: 'ok' },
    mqtt: 'off',
    ble: 'off',
    bleRequired: false,
    store: { ok: true, path: '/var/lib/panic-pair/pairings.json' },
    unsavedLinks: 0,
    devices: [],
    autoPair: false,
    counters: { announcements: 0, dropped: 0, links: 0, apiErrors: 0, batteryDropped: 0, forged: 0, replayed: 0, plain: 0 },
  }).problems;
}

describe("a refused token's fix", () => {
  it("is a restart when the token is systemd's credential, as the package and install.sh hand it", () => {
    expect(refused('credential')).toEqual(['the API refused the token (401): write a valid token to /etc/panic-pair/api-token, then restart (systemctl restart panic-pair)']);
  });
  it('is a reload when the token is a file the daemon reads itself', () => {
    expect(refused('file')).toEqual(['the API refused the token (401): write a valid token to the token file, then reload (systemctl reload panic-pair)']);
  });
  it('is a restart when the token is in the environment', () => {
    expect(refused('env')).toEqual(['the API refused the token (401): set a valid PANIC_PAIR_API_TOKEN, then restart (systemctl restart panic-pair)']);
  });
});
