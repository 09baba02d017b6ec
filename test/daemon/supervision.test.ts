import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthPayload } from '../../src/mqtt/topics.js';
import type { DeviceRow } from '../../src/supervision/types.js';
import { startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { observe, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';
import { binarySensorState, renderTemplates } from '../support/home-assistant-render.js';

// Supervision with a real daemon, a real broker and the real clock: a button that keeps
// announcing itself every second learns a deadline of about a minute; when it stops, it is missing
// in `status`, `devices` and the health the fleet reads, within that deadline plus a minute, and
// online again at its next report; Home Assistant's Missing entity, rendered with the real Jinja2,
// goes on and off with it. Then a restart shows no false missing.

const DEVICE = 'SUPERVISED-1';
/** The minute allowed past the deadline, and room for a busy machine to publish it. */
const ALLOWANCE_MS = 60_000;
const HA = 'ha-supervision';

interface EntityConfig {
  name: string;
  state_topic: string;
  value_template: string;
  payload_on?: string;
  payload_off?: string;
  device_class?: string;
}

describe('a linked button that falls silent', () => {
  let hub: DaemonHarness;
  let watcher: MqttObserver;
  let ticker: NodeJS.Timeout | undefined;
  beforeAll(async () => {
    hub = await startHarness({ logLevel: 'info', env: { PANIC_PAIR_HOMEASSISTANT: 'true', PANIC_PAIR_HOMEASSISTANT_PREFIX: HA } });
    watcher = await observe(hub.broker.url, [`${hub.prefix}/health`, `${hub.prefix}/devices/${DEVICE}/availability`, `${HA}/+/+/+/config`]);
  });
  afterAll(async () => {
    clearInterval(ticker);
    await watcher?.close();
    await hub?.close();
  });

  const row = async (): Promise<DeviceRow | undefined> => (await hub.devices<DeviceRow>()).find((d) => d.deviceId === DEVICE);
  const keepAnnouncing = (): void => {
    ticker = setInterval(() => void hub.announce(DEVICE, { battery: 80 }).catch(() => undefined), 1_000);
  };

  it('is missing in status, devices and health within its deadline plus a minute, and online at its next report', async () => {
    await hub.announceSeen(DEVICE);
    const pair = await hub.cli(['pair', DEVICE, '--json']);
    expect(pair.code, pair.stderr).toBe(0);
    keepAnnouncing();
    const learned = await waitFor(async () => {
      const r = await row();
      return r?.supervision === 'online' && r.deadlineSeconds !== undefined && r.deadlineSeconds !== null && r.deadlineSeconds < 120 ? r : undefined;
    }, { timeoutMs: 30_000, intervalMs: 500, what: 'the button online with a learned deadline' });
    expect(learned).toMatchObject({ state: 'linked', supervision: 'online', batteryLow: false, lastHeard: expect.stringMatching(/Z$/) });
    await waitFor(async () => (await row())?.battery === 80, { timeoutMs: 5_000, what: 'the battery from the announcements' });
    const availability = (): string[] => watcher.payloads(`${hub.prefix}/devices/${DEVICE}/availability`);
    await waitFor(() => availability().at(-1) === '{"state":"online"}', { timeoutMs: 10_000, what: 'the retained availability online' });

    clearInterval(ticker);
    const silentAt = Date.now();
    const deadlineMs = learned.deadlineSeconds! * 1000;
    const status = await waitFor(async () => {
      const report = await hub.status();
      return report.buttons.missing === 1 ? report : undefined;
    }, { timeoutMs: deadlineMs + ALLOWANCE_MS + 30_000, intervalMs: 1_000, what: 'the silent button to be missing' });
    expect(Date.now() - silentAt).toBeLessThanOrEqual(deadlineMs + ALLOWANCE_MS + 5_000);
    expect(status.healthy).toBe(false);
    expect(status.problems).toContainEqual(expect.stringMatching(new RegExp(`^button ${DEVICE} missing for \\d+ (s|min) \\(last heard \\d\\d:\\d\\d\\)$`)));
    expect(status.buttons).toEqual({ linked: 1, online: 0, missing: 1, unknown: 0, unsupervised: 0, batteryLow: 0 });
    expect((await hub.cli(['status'])).code).toBe(1);
    expect(await row()).toMatchObject({ supervision: 'missing' });
    const text = await hub.cli(['devices']);
    expect(text.stdout).toMatch(/missing for/);
    // The fleet's view says the same.
    await waitFor(() => watcher.payloads(`${hub.prefix}/health`).map((p) => JSON.parse(p) as HealthPayload).find((h) => h.buttons.missing === 1 && h.problems.some((p) => p.includes(DEVICE))), {
      timeoutMs: 10_000,
      what: 'the health naming the missing button',
    });
    expect(hub.output()).toMatch(/button missing: not heard within its deadline/);
    await waitFor(() => availability().at(-1) === '{"state":"offline"}', { timeoutMs: 10_000, what: "the retained availability offline (Zigbee2MQTT's form)" });
    // Home Assistant: the button's Missing entity is on, and its battery known.
    const entity = (name: string): EntityConfig | undefined =>
      watcher.messages
        .filter((message) => message.topic.startsWith(`${HA}/`) && message.payload !== '')
        .map((message) => JSON.parse(message.payload) as EntityConfig & { device?: { name?: string } })
        .find((config) => config.name === name && config.device?.name === `Panic button ${DEVICE}`);
    const missingEntity = await waitFor(() => entity('Missing'), { timeoutMs: 10_000, what: "the button's Missing entity" });
    expect(missingEntity).toMatchObject({ device_class: 'problem', state_topic: `${hub.prefix}/devices/${DEVICE}/availability` });
    const missingShown = (): 'on' | 'off' | null => binarySensorState(renderTemplates([{ template: missingEntity.value_template, payload: availability().at(-1)! }])[0]!, missingEntity);
    expect(missingShown()).toBe('on');
    expect(entity('Battery')).toMatchObject({ device_class: 'battery' });

    await hub.announce(DEVICE);
    await waitFor(async () => (await hub.status()).buttons.online === 1, { timeoutMs: 10_000, what: 'the button online again' });
    expect((await hub.status()).healthy).toBe(true);
    await waitFor(() => availability().at(-1) === '{"state":"online"}', { timeoutMs: 10_000, what: 'the retained availability online again' });
    expect(missingShown()).toBe('off');

    // A low battery is a problem of its own, not missing.
    await hub.announce(DEVICE, { battery: 15 });
    const low = await waitFor(async () => {
      const report = await hub.status();
      return report.buttons.batteryLow === 1 ? report : undefined;
    }, { timeoutMs: 10_000, what: 'the low battery' });
    expect(low.problems).toContain(`button ${DEVICE} battery 15 % (low)`);
    expect(low.buttons.missing).toBe(0);
    await hub.announce(DEVICE, { battery: 90 });
  }, 240_000);

  it('a restart keeps the last-heard time and shows no false missing', async () => {
    keepAnnouncing();
    await waitFor(async () => (await row())?.supervision === 'online', { timeoutMs: 10_000, what: 'the button online' });
    const before = await row();
    const exit = await hub.stop();
    expect(exit.code).toBe(0);
    const saved = JSON.parse(readFileSync(hub.storeFile, 'utf8')) as { schemaVersion: number; heard: { devices: Record<string, { lastHeard: string }> } };
    expect(saved.schemaVersion).toBe(3);
    // Both are the wall time of the same monotonic instant, read a moment apart: equal to the millisecond or so.
    expect(Date.parse(saved.heard.devices[DEVICE]!.lastHeard)).toBeGreaterThanOrEqual(Date.parse(before!.lastHeard!) - 1_000);
    const missingLines = (hub.output().match(/button missing/g) ?? []).length;

    await hub.restart();
    const after = await row();
    expect(['unknown', 'online']).toContain(after?.supervision);
    await waitFor(async () => (await row())?.supervision === 'online', { timeoutMs: 10_000, what: 'the button online after the restart' });
    expect((await hub.status()).buttons.missing).toBe(0);
    expect((hub.output().match(/button missing/g) ?? []).length).toBe(missingLines);
    clearInterval(ticker);
  }, 60_000);
});
