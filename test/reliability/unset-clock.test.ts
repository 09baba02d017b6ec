import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLOCK_UNSET } from '../../src/clock.js';
import type { StatusReport } from '../../src/status/status-report.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { fakeWallClock, findLibfaketime, NO_FAKETIME } from '../support/faketime.js';
import { waitFor } from '../support/wait.js';
import { makeSelfSignedCertificate, startTlsRelay, type TlsRelay } from './support/tls-relay.js';

// A Pi that boots in 1970 until NTP sets its clock. `status` and `check`
// name the unset clock; the API's certificate, "not yet valid" by that clock, is a passing
// failure (retried, the device never marked rejected), and the link goes through once the clock
// is right. The API is the simulator behind TLS with a certificate the daemon trusts.

const library = findLibfaketime();
const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-1970-'));
const certificate = makeSelfSignedCertificate(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const why = library === undefined ? NO_FAKETIME : 'openssl is not installed: no certificate to test with';

describe.skipIf(library === undefined || certificate === undefined)(`a wall clock set to 1970 against an HTTPS API (${why})`, () => {
  let hub: DaemonHarness | undefined;
  let relay: TlsRelay | undefined;
  afterAll(async () => {
    await hub?.close();
    await relay?.close();
  });

  it('status and check name the clock; pair waits out "not yet valid" (exit 8, no POST); linked once the clock is set', { timeout: 90_000 }, async () => {
    relay = await startTlsRelay(certificate!);
    const clock = fakeWallClock(library!, dir, '@1970-01-02 00:00:00');
    hub = await startHarness({
      logLevel: 'info',
      env: { ...clock.env, PANIC_PAIR_API_URL: `https://127.0.0.1:${relay.port}`, NODE_EXTRA_CA_CERTS: certificate!.certFile },
    });
    relay.setTarget(Number(new URL(hub.simulator.url).port));

    const status = await hub.cli(['status', '--json']);
    expect(status.code).toBe(1);
    expect((JSON.parse(status.stdout) as StatusReport).problems).toContain(CLOCK_UNSET);
    const plainStatus = await hub.cli(['status']);
    expect(plainStatus.stdout).toContain(CLOCK_UNSET);

    // `check` on the same hub: under the same clock.
    const check = await hub.cli(['check'], { env: hub.daemonEnv() });
    expect(check.code, check.stdout + check.stderr).toBe(1);
    expect(check.stdout).toContain(CLOCK_UNSET);

    await hub.announceSeen('CLOCK-1');
    const pair = await hub.cli(['pair', 'CLOCK-1', '--timeout', '8']);
    expect(pair.code, pair.stdout + pair.stderr).toBe(8);
    expect(pair.stdout).toMatch(/not yet valid .*CERT_NOT_YET_VALID.*; trying again in \d+ s/);
    expect(pair.stderr).toContain('the hub keeps trying in the background');
    expect(postsFor(hub, 'CLOCK-1')).toBe(0);
    expect(hub.storeRecords().find((record) => record.deviceId === 'CLOCK-1')?.state).not.toBe('rejected');

    // NTP sets the clock: the problem is gone and the same button links, once.
    clock.set('+0');
    await waitFor(async () => !(await hub!.status()).problems.includes(CLOCK_UNSET), { what: 'the clock problem to clear' });
    const again = await hub.cli(['pair', 'CLOCK-1', '--timeout', '30']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(postsFor(hub, 'CLOCK-1')).toBe(1);
  });
});
