import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBinary } from '../support/binary.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { waitFor } from '../support/wait.js';

// Every exit code of `panic-pair pair`, through the real binary, against
// a real daemon, broker and the simulator.

interface PairJson {
  ok: boolean;
  deviceId: string;
  state?: string;
  linkId?: number;
  linkedAt?: string;
  alreadyLinked?: boolean;
  kind?: string;
  message?: string;
  exitCode?: number;
}

describe('pair against an entitled customer', () => {
  let hub: DaemonHarness;
  beforeAll(async () => {
    hub = await startHarness();
  });
  afterAll(() => hub?.close());

  it('status exits 0 while healthy, with the fields scripts rely on', async () => {
    const result = await hub.cli(['status', '--json']);
    expect(result.code, result.stdout).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      healthy: true,
      customerId: 42,
      entitled: true,
      mqtt: 'connected',
      ble: 'off',
      counters: { announcements: expect.any(Number), dropped: expect.any(Number), links: expect.any(Number), apiErrors: 0, batteryDropped: 0 },
    });
  });

  it('exits 0 when linked, and the store holds the link the API returned', async () => {
    await hub.announceSeen('EXIT0-A');
    const result = await hub.cli(['pair', 'EXIT0-A', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout) as PairJson;
    expect(answer).toMatchObject({ ok: true, deviceId: 'EXIT0-A', state: 'linked', alreadyLinked: false });
    expect(answer.linkId).toEqual(expect.any(Number));

    const record = (await hub.devices()).find((device) => device.deviceId === 'EXIT0-A');
    expect(record).toMatchObject({ state: 'linked', customerId: 42, source: 'mqtt', linkId: answer.linkId });
    expect(Date.parse(record?.linkedAt ?? '')).not.toBeNaN();
    expect(postsFor(hub, 'EXIT0-A')).toBe(1);
  });

  it('exits 0 when already linked, without posting again', async () => {
    const result = await hub.cli(['pair', 'EXIT0-A']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('already linked');
    expect(postsFor(hub, 'EXIT0-A')).toBe(1);
  });

  it('exits 1 when the reply names another device, and records the device as failed, not linked', async () => {
    hub.simulator.setFaults({ queue: [{ type: 'other-device', route: 'link' }] });
    try {
      await hub.announceSeen('EXIT1-A');
      const result = await hub.cli(['pair', 'EXIT1-A', '--json']);
      expect(result.code, result.stdout).toBe(1);
      // --json: one JSON document on stdout, failures included.
      expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, deviceId: 'EXIT1-A', kind: 'invalid-reply', exitCode: 1 });
    } finally {
      hub.simulator.setFaults({});
    }
    const record = (await hub.devices()).find((device) => device.deviceId === 'EXIT1-A');
    expect(record?.state).toBe('failed');
    expect(record?.linkId).toBeUndefined();
  });

  it('exits 2 for a deviceId that breaks the rules, naming it', async () => {
    for (const bad of ['bad id!', 'x'.repeat(65), 'a/b']) {
      const result = await hub.cli(['pair', bad]);
      expect(result.code, bad).toBe(2);
      expect(result.stderr).toContain('deviceId');
    }
    expect(hub.simulator.stats().postsByDevice).not.toHaveProperty('bad id!');
  });

  it('exits 4 when the API rejects the link, showing its message, and records it as rejected', async () => {
    hub.simulator.setFaults({ rejectDeviceIds: ['EXIT4-A'] });
    try {
      await hub.announceSeen('EXIT4-A');
      const result = await hub.cli(['pair', 'EXIT4-A']);
      expect(result.code, result.stdout).toBe(4);
      expect(result.stderr).toContain('device EXIT4-A cannot be linked');
    } finally {
      hub.simulator.setFaults({});
    }
    const record = (await hub.devices()).find((device) => device.deviceId === 'EXIT4-A');
    expect(record?.state).toBe('rejected');
    expect(record?.error).toContain('cannot be linked');
  });

  it('exits 8 when the button is never seen within --timeout', async () => {
    const result = await hub.cli(['pair', 'EXIT8-NEVER', '--timeout', '2']);
    expect(result.code, result.stdout).toBe(8);
    expect(result.stderr).toContain('button EXIT8-NEVER was not seen in time: press it near the hub and pair again');
    expect(postsFor(hub, 'EXIT8-NEVER')).toBe(0);
    expect((await hub.devices()).map((device) => device.deviceId)).not.toContain('EXIT8-NEVER');
  });

  it('exits 8 when the API does not answer within --timeout, and the link still finishes', async () => {
    hub.simulator.setFaults({ latencyMs: 2000 });
    try {
      await hub.announceSeen('EXIT8-SLOW');
      const result = await hub.cli(['pair', 'EXIT8-SLOW', '--timeout', '1']);
      expect(result.code, result.stdout).toBe(8);
      expect(result.stderr).toContain('did not answer');
    } finally {
      hub.simulator.setFaults({});
    }
    await waitFor(async () => (await hub.devices()).find((device) => device.deviceId === 'EXIT8-SLOW')?.state === 'linked', {
      what: 'the slow link to finish',
    });
    expect(postsFor(hub, 'EXIT8-SLOW')).toBe(1);
  });

  it('run exits 2 naming PANIC_PAIR_CUSTOMER_ID when it is missing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-badconfig-'));
    try {
      const env = { ...hub.daemonEnv(), PANIC_PAIR_CUSTOMER_ID: undefined, PANIC_PAIR_STATE_DIR: dir, PANIC_PAIR_RUNTIME_DIR: dir };
      const result = await hub.cli(['run'], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('PANIC_PAIR_CUSTOMER_ID');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('pair when the API says no before any link', () => {
  it('exits 3 for a customer whose only subscription is cancelled, and nothing is posted', async () => {
    const hub = await startHarness({
      customerId: 43,
      seed: { customers: [{ id: 43, subscriptions: [{ id: 7, subscriptionTypeId: 1, status: 'cancelled', dependantCustomerIds: [] }] }] },
    });
    try {
      await hub.announceSeen('EXIT3-A');
      const result = await hub.cli(['pair', 'EXIT3-A']);
      expect(result.code, result.stdout).toBe(3);
      expect(result.stderr).toContain('no active subscription');
      expect(hub.simulator.stats().requests.link).toBe(0);
      expect(hub.simulator.stats().postsByDevice).toEqual({});
      expect(await hub.devices()).toEqual([]);
    } finally {
      await hub.close();
    }
  });

  it('exits 5 for a refused token, and status says so (healthy false, exit 1)', async () => {
    const hub = await startHarness({ daemonToken: 'not-the-token-the-api-wants' });
    try {
      await hub.announceSeen('EXIT5-A');
      const result = await hub.cli(['pair', 'EXIT5-A']);
      expect(result.code, result.stdout).toBe(5);
      expect(hub.simulator.stats().requests.link).toBe(0);

      const status = await hub.cli(['status', '--json']);
      expect(status.code).toBe(1);
      const report = JSON.parse(status.stdout) as { token: string; healthy: boolean; problems: string[] };
      expect(report.token).toBe('refused');
      expect(report.healthy).toBe(false);
      expect(report.problems.join(' ')).toContain('401');
    } finally {
      await hub.close();
    }
  });

  it('exits 6 for a customer the API does not know', async () => {
    const hub = await startHarness({ customerId: 99 });
    try {
      await hub.announceSeen('EXIT6-A');
      const result = await hub.cli(['pair', 'EXIT6-A']);
      expect(result.code, result.stdout).toBe(6);
      expect(hub.simulator.stats().requests.link).toBe(0);
    } finally {
      await hub.close();
    }
  });
});

describe('pair without a daemon', () => {
  it('exits 7 when no daemon listens', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-nodaemon-'));
    try {
      const result = await runBinary(['pair', 'EXIT7-A', '--timeout', '2'], { PATH: process.env.PATH, PANIC_PAIR_CONFIG: '', PANIC_PAIR_RUNTIME_DIR: dir });
      expect(result.code).toBe(7);
      expect(result.stderr).toContain('not running');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
