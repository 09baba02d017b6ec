import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectAsync } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubRow } from '../../src/fleet/hub-row.js';
import { assertBuilt } from '../support/binary.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { fleet, watchFleet } from '../support/fleet-reader.js';
import { findExecutable } from '../support/installed.js';
import { publishOnce } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// `panic-pair fleet` against what a central broker may hold besides good
// hubs: payloads that are not JSON or break the schema, ids that are not hub ids, words of another
// shape, a health too large to take; each a row of its own, and the command goes on. A broker that
// cannot be read (unreachable, a certificate refused either way, a flag wrong) is exit 2 naming
// the flag or the address, with the fix.

const HEALTH = {
  version: '0.1.0', healthy: true, problems: [], ble: 'scanning', mqtt: 'connected',
  devices: { total: 1, linked: 1, linking: 0, rejected: 0, failed: 0 }, uptimeSeconds: 60,
};
const health = (fields: Record<string, unknown> = {}): string => JSON.stringify({ ...HEALTH, at: new Date().toISOString(), ...fields });

let dir: string;
beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-fleet-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(findExecutable('mosquitto') === undefined)('bad input on the central broker', () => {
  let central: TestBroker;
  beforeAll(async () => {
    // The reader may read hubs/# and publish nothing: its end-of-retained marker is refused, and
    // it falls back on a quiet second after the last retained message.
    const acl = path.join(dir, 'acl');
    writeFileSync(acl, 'topic read hubs/#\npattern write hubs/#\n');
    central = await startBroker({ extraConfig: `acl_file ${acl}` });
    const retained: Array<[string, string | Buffer]> = [
      ['hubs/good/health', health()],
      ['hubs/good/status', 'online'],
      ['hubs/good/bridge/state', '1'],
      ['hubs/notjson/health', '{"version": "0.1.0", "healthy": tr'],
      ['hubs/schema/health', health({ problems: 'none', version: 7 })],
      ['hubs/has space/health', health()],
      ['hubs/wordy/status', 'maybe'],
      ['hubs/wordy/health', health()],
      ['hubs/shape/bridge/state', '{"connected": true}'],
      ['hubs/shape/health', health()],
      ['hubs/escape/health', health({ healthy: false, problems: ['\u001b[2J\u001b]0;owned\u0007 screen cleared'] })],
      // Over the 64 KiB a health may take: refused unread.
      ['hubs/big/health', `{"pad":"${'x'.repeat(100 * 1024)}"}`],
      // Over the packet size this reader asks for (MQTT 5): the broker never sends it.
      ['hubs/huge/health', Buffer.alloc(2 * 1024 * 1024, 0x7b)],
      ['hubs/huge/status', 'online'],
    ];
    for (const [topic, payload] of retained) await publishOnce(central.url, topic, [payload], { retain: true });
  }, 60_000);
  afterAll(async () => {
    await central?.stop();
  });

  it('reports each as a row of its own and never stops', async () => {
    const result = await fleet(['--central', central.address, '--json']);
    expect(result.code, result.stderr).toBe(1);
    const rows = new Map((JSON.parse(result.stdout) as HubRow[]).map((row) => [row.hub, row]));
    const seen = (hub: string): string => `${rows.get(hub)?.state} ${rows.get(hub)?.cause}: ${rows.get(hub)?.reason}`;
    expect(seen('good')).toMatch(/^healthy none/);
    expect(seen('notjson')).toBe('unreadable bad-health: unreadable health: not JSON');
    expect(seen('schema')).toMatch(/^unreadable bad-health: unreadable health: (version|problems): /);
    expect(seen('has space')).toMatch(/^unreadable bad-id: not a hub id: "has space"/);
    expect(seen('wordy')).toBe('unreadable bad-status: unreadable status: "maybe" (expected online or offline)');
    expect(seen('shape')).toBe('unreadable bad-bridge: unreadable bridge state: "{\\"connected\\": true}" (expected 1 or 0)');
    expect(seen('escape')).toMatch(/^unhealthy problems/);
    expect(seen('big')).toMatch(/^unreadable bad-health: unreadable health: \d+ bytes, over the 65536 a health may take$/);
    expect(seen('huge')).toMatch(/^stale no-health: no health received/);
    expect(rows.size).toBe(9);

    const text = await fleet(['--central', central.address]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^"has space" +unreadable/m);
    expect(text.stdout).toContain('?[2J?]0;owned? screen cleared');
    expect(text.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('9 hubs: 1 stale, 6 unreadable, 1 unhealthy, 1 healthy');
  }, 60_000);

  it('says when there is no hub at all, and exits 1 (a reader that may not read hubs/# sees none)', async () => {
    const empty = await startBroker();
    try {
      const result = await fleet(['--central', empty.address]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^no hub on the central broker/);
      expect(await fleet(['--central', empty.address, '--json'])).toMatchObject({ code: 1, stdout: '[]\n' });
    } finally {
      await empty.stop();
    }
  }, 30_000);
});

describe('a central broker that cannot be read', () => {
  it('is exit 2 naming the address and --central when nothing answers', async () => {
    const gone = await startBroker({ kind: 'embedded' });
    await gone.stop();
    const result = await fleet(['--central', gone.address]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no MQTT broker answers at ${gone.address} (connection refused)`);
    expect(result.stderr).toMatch(/correct --central/);
  }, 30_000);

  it.each([
    [['--central', 'http://central.example.com'], /--central must be an mqtt:\/\/ or mqtts:\/\/ URL/],
    [['--central', 'mqtt://reader:secret@central.example.com'], /--central must not carry a user or password: give this reader a client certificate/],
    [['--central', 'mqtts://central.example.com', '--certfile', '/etc/hostname'], /--certfile needs --keyfile/],
    [['--central', 'mqtt://central.example.com', '--cafile', '/etc/hostname'], /--cafile needs an mqtts:\/\/ --central/],
    [['--central', 'mqtts://central.example.com', '--cafile', '/nonexistent/ca.pem'], /--cafile \/nonexistent\/ca.pem does not exist/],
    [['--central', 'mqtt://central.example.com', '--json', '--prometheus'], /--json and --prometheus are two outputs/],
    [['--central', 'mqtt://central.example.com', '--watch', '--prometheus'], /--prometheus is one reading, not a stream/],
  ])('refuses %j with exit 2 naming the flag', async (args, message) => {
    const result = await fleet(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain('secret');
  });
});

describe.skipIf(findExecutable('mosquitto') === undefined)('a central broker over TLS that asks for a client certificate', () => {
  let central: TestBroker;
  let caDir: string;
  beforeAll(async () => {
    central = await startBroker({ tls: { names: ['IP:127.0.0.1'] }, extraConfig: 'require_certificate true' });
    caDir = path.dirname(central.caFile!);
  }, 30_000);
  afterAll(async () => {
    await central?.stop();
  });
  const tlsArgs = (): string[] => ['--central', central.address];

  it('is exit 2 naming --cafile when the broker is not trusted', async () => {
    const result = await fleet(tlsArgs());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/presented a certificate the hub does not trust|not trusted/);
    expect(result.stderr).toMatch(/point --cafile at the PEM file of the CA/);
  }, 30_000);

  it('is exit 2 naming --certfile when the reader has no certificate, or one the broker refuses', async () => {
    const none = await fleet([...tlsArgs(), '--cafile', central.caFile!]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`the central broker at ${central.address} refused this reader without a client certificate`);
    expect(none.stderr).toMatch(/give --certfile and --keyfile/);

    const stranger = path.join(dir, 'stranger');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${stranger}.key`, '-out', `${stranger}.pem`, '-days', '1', '-subj', '/CN=stranger'], { stdio: 'ignore' });
    const refused = await fleet([...tlsArgs(), '--cafile', central.caFile!, '--certfile', `${stranger}.pem`, '--keyfile', `${stranger}.key`]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('refused this reader with the certificate --certfile names');
  }, 30_000);

  it('refuses a key others can read, then reads with the certificate the broker trusts', async () => {
    const key = path.join(dir, 'reader.key');
    copyFileSync(path.join(caDir, 'server.key'), key);
    chmodSync(key, 0o644);
    const loose = await fleet([...tlsArgs(), '--cafile', central.caFile!, '--certfile', path.join(caDir, 'server.pem'), '--keyfile', key]);
    expect(loose.code).toBe(2);
    expect(loose.stderr).toMatch(/--keyfile .*reader\.key is readable by group or others \(mode 0644\): chmod o-rwx/);
    chmodSync(key, 0o600);
    const read = await fleet([...tlsArgs(), '--cafile', central.caFile!, '--certfile', path.join(caDir, 'server.pem'), '--keyfile', key]);
    expect(read.stderr).toBe('');
    expect(read.stdout).toMatch(/^no hub on the central broker/);
  }, 30_000);
});

describe('another broker, and a broker lost while watching', () => {
  it('reads every hub from a broker that speaks MQTT 3.1.1 only and sends its retained copies beside later traffic (aedes)', async () => {
    const aedes = await startBroker({ kind: 'embedded' });
    try {
      const client = await connectAsync(aedes.url, { reconnectPeriod: 0 });
      const hubs = 1_000;
      const publishes: Array<Promise<unknown>> = [];
      for (let i = 0; i < hubs; i++) {
        publishes.push(client.publishAsync(`hubs/hub-${i}/health`, health(), { qos: 1, retain: true }));
        publishes.push(client.publishAsync(`hubs/hub-${i}/status`, 'online', { qos: 1, retain: true }));
      }
      await Promise.all(publishes);
      // Later traffic all the while the reader reads: a live health of a new hub every few
      // milliseconds, never retained, which aedes sends in among its retained copies.
      let live = 0;
      let reading = true;
      const talking = (async () => {
        while (reading) {
          await client.publishAsync(`hubs/live-${live++}/health`, health(), { qos: 0 });
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const result = await fleet(['--central', aedes.address, '--json']).finally(() => (reading = false));
      await talking;
      await client.endAsync();
      expect(result.code, result.stderr).toBe(0);
      const rows = JSON.parse(result.stdout) as HubRow[];
      const retained = rows.filter((row) => row.hub.startsWith('hub-'));
      expect(new Set(retained.map((row) => row.hub)).size).toBe(hubs);
      expect(retained.every((row) => row.state === 'healthy' && row.daemon === 'online')).toBe(true);
      // Some of the later traffic reached the reader while it read; the rest of the rows are it.
      expect(rows.length).toBeGreaterThan(hubs);
      expect(rows.filter((row) => !row.hub.startsWith('hub-')).every((row) => /^live-\d+$/.test(row.hub))).toBe(true);
    } finally {
      await aedes.stop();
    }
  }, 60_000);

  it('--watch says when it loses the broker, reconnects by itself, and goes on printing changes', async () => {
    const broker = await startBroker();
    const watch = watchFleet(['--central', broker.address]);
    try {
      await publishOnce(broker.url, 'hubs/hub-1/health', [health()], { retain: true });
      await waitFor(() => watch.rows().some((row) => row.hub === 'hub-1' && row.state === 'healthy'), { timeoutMs: 20_000, what: 'the first row' });
      await broker.restart();
      await waitFor(() => watch.stderr().includes(`lost the central broker at ${broker.address}`), { timeoutMs: 20_000, what: 'the loss said' });
      await waitFor(() => watch.stderr().includes(`connected again to the central broker at ${broker.address}`), { timeoutMs: 30_000, what: 'the reconnection said' });
      await publishOnce(broker.url, 'hubs/hub-1/health', [health({ healthy: false, problems: ['the API is failing'] })], { retain: true });
      const sick = await waitFor(() => watch.rows().find((row) => row.hub === 'hub-1' && row.state === 'unhealthy'), { timeoutMs: 20_000, what: 'the change after the reconnection' });
      expect(sick.reason).toBe('the API is failing');
      expect(await watch.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    } finally {
      await watch.stop('SIGKILL');
      await broker.stop();
    }
  }, 90_000);
});
