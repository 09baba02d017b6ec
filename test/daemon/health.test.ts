import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthPayload } from '../../src/mqtt/topics.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { observe, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// The hub's health on a real broker and a real daemon: `<prefix>/health` retained, derived
// from the same report `status --json` prints, and `<prefix>/status` `offline` as the last will
// when the daemon dies without a word.

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('<prefix>/health', () => {
  let hub: DaemonHarness;
  let watcher: MqttObserver;
  beforeAll(async () => {
    hub = await startHarness();
    watcher = await observe(hub.broker.url, [`${hub.prefix}/health`, `${hub.prefix}/status`]);
  });
  afterAll(async () => {
    await watcher?.close();
    await hub?.close();
  });

  const healths = (): HealthPayload[] => watcher.payloads(`${hub.prefix}/health`).map((text) => JSON.parse(text) as HealthPayload);

  it('is retained, says what status says, and follows a pairing at once', async () => {
    const first = await waitFor(() => healths().find((health) => health.healthy), { what: 'a healthy health message' });
    expect(Object.keys(first).sort()).toEqual(['at', 'ble', 'buttons', 'devices', 'healthy', 'mqtt', 'problems', 'update', 'uptimeSeconds', 'version']);
    const status = await hub.status();
    expect(first).toEqual({
      version: status.version,
      healthy: true,
      problems: [],
      ble: 'off',
      mqtt: 'connected',
      devices: { total: 0, linked: 0, linking: 0, rejected: 0, failed: 0 },
      buttons: { linked: 0, online: 0, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 },
      uptimeSeconds: expect.any(Number),
      update: null,
      at: expect.stringMatching(ISO),
    });

    await hub.announceSeen('HEALTH-1');
    const pair = await hub.cli(['pair', 'HEALTH-1', '--json']);
    expect(pair.code, pair.stderr).toBe(0);
    await waitFor(() => healths().some((health) => health.devices.linked === 1), { what: 'the health to count the linked button' });

    // A fleet dashboard that subscribes later reads the latest from the broker.
    const late = await observe(hub.broker.url, `${hub.prefix}/health`);
    try {
      const retained = await waitFor(() => late.messages.find((message) => message.retain), { what: 'the retained health' });
      expect(JSON.parse(retained.payload)).toMatchObject({ healthy: true, devices: { total: 1, linked: 1 } });
    } finally {
      await late.close();
    }
  });

  it('names the problem status names, and never carries the token', async () => {
    // A token the API refuses, installed and reloaded as an installer would.
    const tokenFile = hub.daemonEnv().PANIC_PAIR_API_TOKEN_FILE!;
    const refused = 'refused-token-0123456789';
    writeFileSync(tokenFile, `${refused}\n`, { mode: 0o600 });
    hub.kill('SIGHUP');
    const degraded = await waitFor(() => healths().find((health) => !health.healthy), { what: 'an unhealthy health message' });
    const status = await hub.status();
    expect(degraded.problems).toEqual(status.problems);
    expect(degraded.problems.join('\n')).toMatch(/refused the token/);

    writeFileSync(tokenFile, `${hub.token}\n`, { mode: 0o600 });
    hub.kill('SIGHUP');
    await waitFor(() => healths().at(-1)?.healthy, { what: 'the health to be healthy again' });
    for (const text of watcher.payloads(`${hub.prefix}/health`)) {
      expect(text).not.toContain(hub.token);
      expect(text).not.toContain(refused);
    }
  });

  it('leaves <prefix>/status offline, the last will, when the daemon is killed', async () => {
    expect(watcher.payloads(`${hub.prefix}/status`).at(-1)).toBe('online');
    hub.kill('SIGKILL');
    expect((await hub.exited()).signal).toBe('SIGKILL');
    await waitFor(() => watcher.payloads(`${hub.prefix}/status`).at(-1) === 'offline', { what: 'the last will on the status topic' });
    // The last health stays retained beside it: why the hub was degraded, if it was.
    const late = await observe(hub.broker.url, `${hub.prefix}/health`);
    try {
      await waitFor(() => late.messages.find((message) => message.retain), { what: 'the retained health after the kill' });
    } finally {
      await late.close();
    }
  });
});
