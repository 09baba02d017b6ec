import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/settings.js';
import { ROOT, runBinary } from '../support/binary.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { observe } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';
import { spawnDaemon, type DaemonProcess } from './support/daemon-process.js';
import { makeSelfSignedCertificate, startTlsRelay, type SelfSignedCertificate, type TlsRelay } from './support/tls-relay.js';

// What leaves the hub: TLS to the API and to the broker is verified, and no switch turns that off
// (NODE_TLS_REJECT_UNAUTHORIZED=0 included); trusting a private CA is the way, and it works. The
// API token never reaches the broker nor the pre-flight `check`.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-tls-'));
const certificate: SelfSignedCertificate | undefined = makeSelfSignedCertificate(dir);
const NO_OPENSSL = 'openssl is not installed: TLS verification is not tested against a self-signed certificate';
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('no switch turns TLS verification off', () => {
  it('the code has none, and no setting is named for one', () => {
    const lines: string[] = [];
    const walk = (folder: string): void => {
      for (const name of readdirSync(folder)) {
        const file = path.join(folder, name);
        if (statSync(file).isDirectory()) walk(file);
        else if (name.endsWith('.ts')) readFileSync(file, 'utf8').split('\n').forEach((line, i) => lines.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`));
      }
    };
    walk(path.join(ROOT, 'src'));
    const verification = lines.filter((line) => /rejectUnauthorized/.test(line));
    expect(verification.length).toBeGreaterThanOrEqual(2);
    for (const line of verification) expect(line).toMatch(/rejectUnauthorized: true\b|^[^:]+:\d+: \/\//);
    expect(lines.filter((line) => /NODE_TLS_REJECT_UNAUTHORIZED|checkServerIdentity|insecureHTTPParser/.test(line))).toEqual([]);
    const names = Object.values(SETTINGS).map((setting) => setting.env).join(' ');
    expect(names).not.toMatch(/INSECURE|NO_VERIFY|SKIP|REJECT_UNAUTHORIZED|TLS_VERIFY/);
  });
});

describe('TLS to the API and the broker, with a self-signed certificate', () => {
  let hub: DaemonHarness;
  let relay: TlsRelay | undefined;
  let daemon: DaemonProcess | undefined;
  beforeAll(async () => {
    if (certificate === undefined) return;
    relay = await startTlsRelay(certificate);
    hub = await startHarness({
      logLevel: 'info',
      // The switch that must not work: Node's own, for the whole process.
      env: { PANIC_PAIR_API_URL: `https://127.0.0.1:${relay.port}`, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
    });
    relay.setTarget(Number(new URL(hub.simulator.url).port));
  });
  afterAll(async () => {
    await daemon?.stop();
    await hub?.close();
    await relay?.close();
  });

  it('the API: refused even with NODE_TLS_REJECT_UNAUTHORIZED=0; nothing posted; accepted once its CA is trusted', async (context) => {
    if (certificate === undefined || relay === undefined) return context.skip(NO_OPENSSL);
    await hub.announceSeen('TLS-API');
    const pair = await hub.cli(['pair', 'TLS-API']);
    expect(pair.code, pair.stdout).toBe(1);
    expect(pair.stderr).toMatch(/TLS certificate or handshake was refused \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)/);
    expect(relay.refusedHandshakes).toBeGreaterThan(0);
    expect(hub.simulator.stats().requests).toEqual({ link: 0, subscriptions: 0 });
    const status = await hub.cli(['status', '--json']);
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('TLS certificate or handshake was refused');

    // The right way to trust a private API: its CA, for this process.
    await hub.stop();
    daemon = await spawnDaemon({ ...hub.daemonEnv(), NODE_EXTRA_CA_CERTS: certificate.certFile });
    const running = daemon;
    await waitFor(async () => (await running.status()).report.entitled === true, { what: 'the entitlement over verified TLS' });
    await hub.announce('TLS-API');
    const again = await running.cli(['pair', 'TLS-API']);
    expect(again.code, again.stderr).toBe(0);
    expect(postsFor(hub, 'TLS-API')).toBe(1);
    await running.stop();
  });

  it('the broker: refused even with NODE_TLS_REJECT_UNAUTHORIZED=0; connects with PANIC_PAIR_MQTT_CA_FILE', async (context) => {
    if (certificate === undefined) return context.skip(NO_OPENSSL);
    const brokerRelay = await startTlsRelay(certificate);
    brokerRelay.setTarget(hub.broker.port);
    const env = { ...hub.daemonEnv(), PANIC_PAIR_API_URL: hub.simulator.url, PANIC_PAIR_MQTT_URL: `mqtts://127.0.0.1:${brokerRelay.port}`, NODE_TLS_REJECT_UNAUTHORIZED: '0' };
    try {
      const refused = await spawnDaemon(env);
      daemon = refused;
      await waitFor(() => brokerRelay.refusedHandshakes > 0, { what: 'the daemon to try the broker' });
      const { code, report } = await refused.status();
      expect(report.mqtt).not.toBe('connected');
      expect(code).toBe(1);
      expect(brokerRelay.acceptedHandshakes).toBe(0);
      await refused.stop();

      const trusting = await spawnDaemon({ ...env, PANIC_PAIR_MQTT_CA_FILE: certificate.certFile });
      daemon = trusting;
      await waitFor(async () => (await trusting.status()).report.mqtt === 'connected', { timeoutMs: 15_000, what: 'the daemon to connect over verified TLS' });
      await trusting.stop();
    } finally {
      await brokerRelay.close();
    }
  });
});

describe('the API token on the broker and in check', () => {
  let hub: DaemonHarness;
  beforeAll(async () => {
    hub = await startHarness({ logLevel: 'trace' });
  });
  afterAll(() => hub?.close());

  it('is never published, whether the link works or a 401 echoes it', async () => {
    const watcher = await observe(hub.broker.url, '#');
    try {
      await hub.announceSeen('TOKEN-A');
      expect((await hub.cli(['pair', 'TOKEN-A'])).code).toBe(0);
      hub.simulator.setFaults({ queue: [{ type: 'status', status: 401, route: 'link', message: `token ${hub.token} is not valid` }] });
      await hub.announceSeen('TOKEN-B');
      expect((await hub.cli(['pair', 'TOKEN-B'])).code).toBe(5);
      await waitFor(() => watcher.messages.some((message) => message.topic.endsWith('/devices/TOKEN-B')), { what: 'the state of TOKEN-B on the broker' });
      expect(watcher.messages.length).toBeGreaterThan(3);
      for (const message of watcher.messages) expect(message.payload, message.topic).not.toContain(hub.token);
    } finally {
      await watcher.close();
    }
    const check = await runBinary(['check', '--json'], hub.daemonEnv());
    expect(check.stdout.length).toBeGreaterThan(0);
    expect(check.stdout + check.stderr).not.toContain(hub.token);
  });
});
