import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoveryId } from '../../src/mqtt/home-assistant-ids.js';
import type { DeviceRow } from '../../src/supervision/types.js';
import { encryptReport } from '../authentication/bthome-vectors.js';
import { runBinary, type CliResult } from '../support/binary.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { CLOCK_CONVERSION_JITTER_MS } from '../support/loaded-machine.js';
import { observe, publishOnce, type MqttObserver } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// Trusted (keyed) buttons with the real parts: the daemon, mosquitto, a BLE gateway's BTtoMQTT
// messages carrying encrypted BTHome, and the real binary. A keyed button is linked only once a
// report verifies; its replays, forgeries and plain imitations are counted, never heard, and show
// as `imitated`; a battery change needs only a re-pairing; a restart forgets no counter.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-keyed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = Buffer.from('231d39c1d7cc1ab1aee224cd096db932', 'hex');
const OTHER_KEY = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
const B1 = '54:48:E6:8F:80:A5';
const B2 = 'C4:7C:8D:6A:00:02';
const GATEWAYS = 'site/+/BTtoMQTT/+';
const topicOf = (mac: string): string => `site/gw1/BTtoMQTT/${mac.replaceAll(':', '')}`;

/** The keyed profile's supervisionSeconds, and the minute allowed after it. */
const DEADLINE_MS = 60_000;
const MISSING_WITHIN_MS = DEADLINE_MS + 60_000;
/** How long after the daemon says a button is missing this test may take to see it (a loaded machine). */
const SEEN_WITHIN_MS = 30_000;

/** The daemon's JSON log lines in `output`. */
function logLines(output: string): Array<{ msg?: string; deviceId?: string; time: string }> {
  return output.split('\n').flatMap((line) => {
    try {
      const entry = JSON.parse(line) as { msg?: string; deviceId?: string; time?: unknown };
      return typeof entry.time === 'string' ? [{ ...entry, time: entry.time }] : [];
    } catch {
      return [];
    }
  });
}

/** A gateway's message for a report of `mac` with `counter`, battery 87 %, encrypted with `key`. */
function message(mac: string, counter: number, key = KEY, battery = 87): string {
  const data = encryptReport({ key, mac, counter, objects: Buffer.from([0x01, battery]) });
  return JSON.stringify({ id: mac, rssi: -50, servicedatauuid: 'fcd2', servicedata: data.toString('hex') });
}

describe('buttons whose reports can be trusted', () => {
  let hub: DaemonHarness;
  let watcher: MqttObserver;
  const outputs: CliResult[] = [];
  const counters = new Map<string, number>([[B1, 100], [B2, 500]]);
  /** The button's next report: its counter one up. */
  const next = (mac: string, key = KEY): string => {
    const counter = counters.get(mac)! + 1;
    counters.set(mac, counter);
    return message(mac, counter, key);
  };
  const publish = (mac: string, payloads: string[]): Promise<void> => publishOnce(hub.broker.url, topicOf(mac), payloads);
  const row = async (deviceId: string): Promise<DeviceRow | undefined> => (await hub.devices<DeviceRow>()).find((device) => device.deviceId === deviceId);
  const keyFile = (name: string, key: Buffer, mode = 0o600): string => {
    const file = path.join(dir, name);
    writeFileSync(file, `${key.toString('hex')}\n`, { mode });
    return file;
  };

  /** Runs the command while the button reports every 100 ms (`report` makes each message). */
  async function reporting(running: Promise<CliResult>, mac: string, report: () => string): Promise<CliResult> {
    let done = false;
    const finished = running.finally(() => (done = true));
    while (!done) {
      await publish(mac, [report()]);
      await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    const result = await finished;
    outputs.push(result);
    return result;
  }

  beforeAll(async () => {
    const config = path.join(dir, 'config.json');
    const profiles = [
      { name: 'panic-button', match: { namePrefix: 'PANIC-' }, deviceId: { from: 'nameSuffix' } },
      { name: 'bthome-button', match: { serviceUuid: 'fcd2' }, deviceId: { from: 'address' }, keyRequired: true, supervisionSeconds: DEADLINE_MS / 1000 },
    ];
    writeFileSync(config, JSON.stringify({ profiles }), { mode: 0o644 });
    hub = await startHarness({ env: { PANIC_PAIR_CONFIG: config, PANIC_PAIR_MQTT_BLE_GATEWAYS: GATEWAYS, PANIC_PAIR_HOMEASSISTANT: 'true' } });
    watcher = await observe(hub.broker.url, '#');
  });
  afterAll(async () => {
    await watcher?.close();
    await hub?.close();
  });

  /** The last counter of B1's reports sent while it was paired: every one of them counted, in order. */
  let pairedUpTo = 0;

  it('links a keyed button once a report verifies, with its battery at once', async () => {
    const result = await reporting(hub.cli(['pair', B1, '--key-file', keyFile('b1.key', KEY)]), B1, () => next(B1));
    pairedUpTo = counters.get(B1)!;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Linked ${B1}`);
    expect(await row(B1)).toMatchObject({ state: 'linked', authenticated: true, battery: 87, supervision: 'online', reports: { forged: 0, replayed: 0, plain: 0 } });
    expect((await row(B1))?.reports?.verified).toBeGreaterThanOrEqual(1);
  });

  it('posts nothing for a key that does not verify the reports: exit 9; a key file others can read: exit 2', async () => {
    const env = { PATH: process.env.PATH, PANIC_PAIR_CONFIG: '', PANIC_PAIR_RUNTIME_DIR: hub.runtimeDir };
    const wrong = await reporting(runBinary(['pair', B2, '--key-file', '-', '--timeout', '20'], env, { input: `${OTHER_KEY.toString('hex')}\n` }), B2, () => next(B2));
    expect(wrong.code, wrong.stderr).toBe(9);
    expect(wrong.stderr).toContain("the key does not verify this button's reports");
    expect(postsFor(hub, B2)).toBe(0);
    expect((await row(B2))?.state).toBeUndefined();

    const loose = await hub.cli(['pair', B2, '--key-file', keyFile('loose.key', KEY, 0o644)]);
    outputs.push(loose);
    expect(loose.code).toBe(2);
    expect(loose.stderr).toContain('--key-file');
    expect(loose.stderr).toContain('chmod 600');
    // Without a key, a profile with keyRequired never links it: said at its first report.
    const unkeyed = await reporting(hub.cli(['pair', B2, '--timeout', '60']), B2, () => next(B2));
    expect(unkeyed.code).toBe(2);
    expect(unkeyed.stderr).toContain(`${B2} is a button of profile bthome-button, which is linked only with its key`);
    expect(postsFor(hub, B2)).toBe(0);
  });

  it('counts forged, replayed and plain reports, never heard, and shows the button imitated everywhere', async () => {
    const before = await row(B1);
    const forged = JSON.parse(next(B1)) as { servicedata: string };
    const flipped = Buffer.from(forged.servicedata, 'hex');
    flipped[3] = flipped[3]! ^ 0x40;
    await publish(B1, [
      JSON.stringify({ ...forged, servicedata: flipped.toString('hex') }),
      message(B1, 101), // an old report, played back
      JSON.stringify({ id: B1, rssi: -50, servicedatauuid: 'fcd2', servicedata: '40015a' }), // BTHome, not encrypted
    ]);
    await hub.announce(B1); // an announcement of its id: plain
    const status = await waitFor(async () => {
      const now = await hub.status();
      return now.counters.forged >= 1 && now.counters.replayed >= 1 && now.counters.plain >= 2 ? now : undefined;
    }, { what: 'the refused reports counted', timeoutMs: 10_000 });
    expect(status.healthy).toBe(false);
    const imitated = `button ${B1} imitated: reports of ${B1} failed authentication: something may be imitating it`;
    expect(status.problems).toContain(imitated);
    const exit = await hub.cli(['status']);
    expect(exit.code).toBe(1);
    expect(exit.stdout).toContain(imitated);
    const after = await row(B1);
    // Converted from the monotonic clock at each read; a refused report counted as heard would
    // move it by the seconds since the pairing's last report.
    expect(Math.abs(Date.parse(after!.lastHeard!) - Date.parse(before!.lastHeard!))).toBeLessThanOrEqual(CLOCK_CONVERSION_JITTER_MS);
    expect(after?.battery).toBe(87);
    expect(after?.reports).toMatchObject({ verified: before?.reports?.verified, forged: 1, replayed: 1, plain: 2 });
    expect(after?.imitated).toBe(true);
    // The health (and so the fleet), and Home Assistant's tamper sensor.
    await waitFor(() => watcher.payloads(`${hub.prefix}/health`).some((payload) => payload.includes(imitated)), { what: 'the health naming it', timeoutMs: 70_000 });
    const config = `homeassistant/binary_sensor/${discoveryId(hub.prefix)}/imitated_${discoveryId(B1)}/config`;
    await waitFor(() => watcher.payloads(config).some((payload) => payload.includes('"device_class":"tamper"')), { what: 'the Imitated config' });
    await waitFor(() => watcher.payloads(`${hub.prefix}/devices/${B1}/supervision`).some((payload) => (JSON.parse(payload) as { imitated?: boolean }).imitated === true), { what: 'imitated on its supervision topic' });
  });

  it('is missing in time while only its old reports are played back', async () => {
    // Missing within its deadline (the profile's 60 s) plus one minute of
    // the last report that counted, on the daemon's clock; played back reports move nothing.
    const lastHeard = Date.parse((await row(B1))!.lastHeard!);
    // Reports older than the last it counted. Not that one: heard again within SAME_REPORT_MS it is
    // the same report (a repeat, heard); nor a counter above it (even the forgery's, never verified):
    // that would be a new report.
    const recorded = [message(B1, pairedUpTo - 2), message(B1, pairedUpTo - 1)];
    const missing = await waitFor(async () => {
      await publish(B1, recorded);
      const now = await row(B1);
      return now?.supervision === 'missing' ? now : undefined;
    }, { what: `${B1} missing while replayed`, timeoutMs: Math.max(0, lastHeard + MISSING_WITHIN_MS - Date.now()) + SEEN_WITHIN_MS, intervalMs: 500 });
    expect(missing.reports?.replayed).toBeGreaterThan(3);
    expect(Math.abs(Date.parse(missing.lastHeard!) - lastHeard)).toBeLessThanOrEqual(CLOCK_CONVERSION_JITTER_MS);
    // When the daemon said so, on its own clock: not before the deadline, and within the minute after it.
    const said = logLines(hub.output()).filter((line) => line.msg === 'button missing: not heard within its deadline' && line.deviceId === B1);
    expect(said).toHaveLength(1);
    const silentFor = Date.parse(said[0]!.time) - lastHeard;
    expect(silentFor).toBeGreaterThanOrEqual(DEADLINE_MS - CLOCK_CONVERSION_JITTER_MS);
    expect(silentFor).toBeLessThanOrEqual(MISSING_WITHIN_MS + CLOCK_CONVERSION_JITTER_MS);
  }, MISSING_WITHIN_MS + SEEN_WITHIN_MS + 30_000);

  it('after a battery change its counter went back, and pairing it again with its key posts nothing and counts it again', async () => {
    counters.set(B1, 0);
    await publish(B1, [next(B1)]);
    await waitFor(async () => (await hub.status()).problems.some((problem) => problem.includes('counter went back (battery changed?): pair it again with its key')), { what: 'the went-back problem' });
    const repaired = await reporting(hub.cli(['pair', B1, '--key-file', keyFile('b1.key', KEY)]), B1, () => next(B1));
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toMatch(/already linked .*counted from \d+ on \(nothing was posted\)/);
    expect(postsFor(hub, B1)).toBe(1);
    // A report with a battery of its own: once the row shows it, the daemon has counted its counter
    // (the button may be online already from the reports sent while it was paired).
    const counter = counters.get(B1)! + 1;
    counters.set(B1, counter);
    await publish(B1, [message(B1, counter, KEY, 86)]);
    await waitFor(async () => {
      const now = await row(B1);
      return now?.supervision === 'online' && now.battery === 86;
    }, { what: `${B1} online again, with its last report counted` });
  });

  it('after a restart, no report recorded before it ever counts', async () => {
    const recorded = message(B1, counters.get(B1)!);
    expect((await hub.stop()).code).toBe(0);
    // Written at shutdown with the heard times: the last counted counter.
    const saved = JSON.parse(readFileSync(hub.storeFile, 'utf8')) as { schemaVersion: number; heard: { devices: Record<string, { counter?: number }> } };
    expect(saved.schemaVersion).toBe(3);
    expect(saved.heard.devices[B1]?.counter).toBe(counters.get(B1));
    await hub.restart();
    await publish(B1, [recorded]);
    await waitFor(async () => (await hub.status()).counters.replayed >= 1, { what: 'the recording refused after the restart' });
    expect((await row(B1))?.supervision).not.toBe('online');
    await publish(B1, [next(B1)]);
    await waitFor(async () => (await row(B1))?.supervision === 'online', { what: `${B1} online at its next report` });
  });

  it('never shows the key: not in a log, an MQTT message or any output', async () => {
    for (const key of [KEY, OTHER_KEY]) {
      for (const spelling of [key.toString('hex'), key.toString('hex').toUpperCase(), key.toString('base64')]) {
        expect(hub.output()).not.toContain(spelling);
        for (const received of watcher.messages) expect(received.payload).not.toContain(spelling);
        for (const result of outputs) expect(result.stdout + result.stderr).not.toContain(spelling);
        expect(JSON.stringify(await hub.status())).not.toContain(spelling);
        expect(JSON.stringify(await hub.cliJson(['devices']))).not.toContain(spelling);
      }
    }
  });
});

describe('PANIC_PAIR_BUTTON_KEYS_FILE, for windows and automatic pairing', () => {
  const B3 = 'C4:7C:8D:6A:00:03';
  let hub: DaemonHarness;
  let counter = 1;
  const publish = (payloads: string[]): Promise<void> => publishOnce(hub.broker.url, topicOf(B3), payloads);

  beforeAll(async () => {
    const config = path.join(dir, 'config-window.json');
    writeFileSync(config, JSON.stringify({ profiles: [{ name: 'bthome-button', match: { serviceUuid: 'fcd2' }, deviceId: { from: 'address' }, keyRequired: true }] }), { mode: 0o644 });
    const keys = path.join(dir, 'button-keys');
    writeFileSync(keys, `# the shop's batch\n${B3} ${KEY.toString('hex')}\n`, { mode: 0o600 });
    hub = await startHarness({ env: { PANIC_PAIR_CONFIG: config, PANIC_PAIR_MQTT_BLE_GATEWAYS: GATEWAYS, PANIC_PAIR_BUTTON_KEYS_FILE: keys } });
  });
  afterAll(() => hub?.close());

  /** A pairing window of `seconds` while the button sends `report()` every 100 ms. */
  async function window(seconds: number, report: () => string): Promise<CliResult> {
    const running = hub.cli(['pair', '--window', String(seconds)]);
    let done = false;
    const finished = running.finally(() => (done = true));
    await waitFor(async () => done || (await hub.status()).windowOpenUntil, { what: 'the window to open' });
    while (!done) {
      await publish([report()]);
      await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    return finished;
  }

  it('a window links nothing on reports that do not verify with the key from the file, and links once one does', async () => {
    const forged = await window(2, () => message(B3, counter++, OTHER_KEY));
    expect(forged.code, forged.stderr).toBe(0);
    expect(postsFor(hub, B3)).toBe(0);
    expect((await hub.status()).counters.forged).toBeGreaterThan(0);
    const verified = await window(2, () => message(B3, counter++));
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain(`Linked ${B3}`);
    expect(postsFor(hub, B3)).toBe(1);
    const linked = (await hub.devices<DeviceRow>()).find((device) => device.deviceId === B3);
    expect(linked).toMatchObject({ state: 'linked', authenticated: true, battery: 87 });
  });

  it('forget removes the key it was linked with from the hub', async () => {
    const stored = path.join(hub.stateDir, 'button-keys.json');
    await waitFor(() => readFileSync(stored, 'utf8').includes(B3), { what: 'the key stored with the link' });
    const forgot = await hub.cli(['forget', B3]);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(readFileSync(stored, 'utf8')).not.toContain(B3);
  });

  it('a file others can read, or a line that is no key, stops run with exit 2, naming the setting and the line, never the key', async () => {
    const loose = path.join(dir, 'keys-loose');
    writeFileSync(loose, `${B3} ${KEY.toString('hex')}\n`, { mode: 0o644 });
    const bad = path.join(dir, 'keys-bad');
    writeFileSync(bad, `${B3} ${KEY.toString('hex')}\nC4:7C:8D:6A:00:04 ${KEY.toString('hex').slice(0, 30)}zz\n`, { mode: 0o600 });
    for (const [file, words] of [[loose, 'chmod 600'], [bad, 'PANIC_PAIR_BUTTON_KEYS_FILE line 2']] as const) {
      const result = await runBinary(['run'], { ...hub.daemonEnv(), PANIC_PAIR_BUTTON_KEYS_FILE: file }, { timeoutMs: 30_000 });
      expect(result.code).toBe(2);
      expect(result.stderr + result.stdout).toContain('PANIC_PAIR_BUTTON_KEYS_FILE');
      expect(result.stderr + result.stdout).toContain(words);
      expect(result.stderr + result.stdout).not.toContain(KEY.toString('hex').slice(0, 16));
    }
  });
});
