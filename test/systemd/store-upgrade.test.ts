import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { ROOT } from '../support/binary.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { checkoutPackage } from '../support/checkout-package.js';
import { PACKAGE_RECIPE, pairInside, unitProperties } from '../support/container-service.js';
import { bootOrReason, type Container } from '../support/container.js';
import { whilePressed } from '../support/pressed-button.js';
import { previousPackage, type PreviousPackage } from '../support/previous-package.js';
import { waitFor } from '../support/wait.js';

// The store's schema change (schemaVersion 2 with `heard`, for supervision) as a hub meets it: the
// release before supervision, built from git history (test/support/previous-package.ts), is
// installed with apt in the deb-package suite's Debian 13 container, configured and given two
// buttons; this checkout's package is installed over it. Every pairing is kept, supervision starts
// on them, and a button heard again is online and saved in `heard`. Then the previous release is
// installed again over it: it refuses the newer store, naming it, and leaves its bytes as they are.
// Skips where deb-package skips; a clone without the history fails.

const TOKEN = 'upgrade-token-3f8a61c0b2';
const CUSTOMER_ID = 42;
const UNIT = 'panic-pair.service';
const STORE = '/var/lib/panic-pair/pairings.json';
const BUTTONS = ['UPG-1', 'UPG-2'];
const STEP_MS = 60_000;
const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Row {
  deviceId: string;
  state: string;
  customerId: number;
  linkId?: number;
  linkedAt?: string;
  supervision?: string;
  lastHeard?: string | null;
}
interface StoreFile {
  schemaVersion: number;
  minorVersion?: number;
  devices: Row[];
  heard?: { savedAt: string; devices: Record<string, { lastHeard: string }> };
}

const headers = path.join(path.dirname(process.execPath), '..', 'include', 'node', 'node_version.h');
const booted = existsSync(headers) ? await bootOrReason(PACKAGE_RECIPE) : `no Node headers at ${headers} to build the package with`;
const skipReason = typeof booted === 'string' ? booted : undefined;
if (skipReason !== undefined) process.stderr.write(`skipping the store upgrade suite: ${skipReason}\n`);

describe.skipIf(skipReason !== undefined)(`the store kept across the package upgrade, in a systemd container${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const box = booted as Container;
  const out = mkdtempSync(path.join(tmpdir(), 'panic-pair-store-upgrade-'));
  let simulator: Simulator;
  let broker: TestBroker;
  let previous: PreviousPackage;
  /** The records as the previous release kept them. */
  let before: Row[];
  let previousStore: StoreFile;

  const inside = (file: string): string => path.join(box.root, file);
  const show = (...properties: string[]) => unitProperties(box, UNIT, ...properties);
  const apt = (...args: string[]) => box.check(['apt-get', '-y', '-q', '--no-install-recommends', ...args], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
  const storeText = () => readFileSync(inside(STORE), 'utf8');
  const store = () => JSON.parse(storeText()) as StoreFile;
  const devices = async () => (JSON.parse(await box.check(['panic-pair', 'devices', '--json'])) as Row[]).sort((a, b) => a.deviceId.localeCompare(b.deviceId));
  const installed = async () => (await box.check(['dpkg-query', '-W', '-f', '${Version}', 'panic-pair'])).trim();
  const pairing = ({ deviceId, state, customerId, linkId, linkedAt }: Row) => ({ deviceId, state, customerId, linkId, linkedAt });
  const previousDeb = () => `/root/${path.basename(previous.deb)}`;

  beforeAll(async () => {
    simulator = await startSimulator({ token: TOKEN });
    broker = await startBroker();
    previous = await previousPackage();
    await copyFile(previous.deb, inside(previousDeb()));
    await copyFile(await checkoutPackage('amd64'), inside(`/root/panic-pair_${version}_amd64.deb`));
  }, 5 * STEP_MS);

  afterAll(async () => {
    await box?.stop();
    await broker?.stop();
    await simulator?.close();
    rmSync(out, { recursive: true, force: true });
  }, 2 * STEP_MS);

  it('the previous release, installed and configured, pairs two buttons into a schemaVersion 1 store', async () => {
    expect((await box.run(['dpkg', '--compare-versions', previous.version, 'lt', version])).code).toBe(0);
    await apt('install', previousDeb());
    await writeFile(inside('/etc/panic-pair/config.json'), `${JSON.stringify({ apiUrl: simulator.url, customerId: CUSTOMER_ID, mqttUrl: broker.url }, null, 2)}\n`);
    await writeFile(inside('/etc/panic-pair/api-token'), `${TOKEN}\n`, { mode: 0o600 });
    await box.check(['systemctl', 'restart', UNIT]);
    for (const deviceId of BUTTONS) {
      const result = await pairInside(box, broker.url, deviceId);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }
    before = await devices();
    expect(before.map(pairing)).toEqual(BUTTONS.map((deviceId) => expect.objectContaining({ deviceId, state: 'linked', customerId: CUSTOMER_ID })));
    // Stopped, so the file holds all it knows; started again, so the upgrade meets a running daemon.
    await box.check(['systemctl', 'stop', UNIT]);
    previousStore = store();
    expect(previousStore.schemaVersion).toBe(1);
    expect(previousStore.heard).toBeUndefined();
    expect(previousStore.devices.map(pairing)).toEqual(before.map(pairing));
    await box.check(['systemctl', 'start', UNIT]);
  }, 2 * STEP_MS);

  it('this release installed over it keeps every pairing and supervises them; a button heard again is online and saved in heard', async () => {
    const { MainPID } = await show('MainPID');
    await apt('install', `/root/panic-pair_${version}_amd64.deb`);
    expect(await installed()).toBe(version);
    const now = await show('MainPID', 'ActiveState');
    expect(now.ActiveState).toBe('active');
    expect(now.MainPID).not.toBe(MainPID);

    const status = JSON.parse(await box.check(['panic-pair', 'status', '--json'])) as { version: string; buttons: Record<string, number>; update: unknown };
    expect(status.version).toBe(version);
    // The release before carried no judge of updates: nothing watched this one, and nothing says so.
    expect(existsSync(inside('/var/lib/panic-pair-update'))).toBe(false);
    expect(status.update).toBeNull();
    expect(status.buttons).toMatchObject({ linked: 2, missing: 0 });
    const after = await devices();
    expect(after.map(pairing)).toEqual(before.map(pairing));
    // Not heard since the daemon started: unknown, never missing.
    expect(after.map((row) => row.supervision)).toEqual(['unknown', 'unknown']);
    // Nothing linked again: one POST per button, from the pairing.
    expect(simulator.stats().postsByDevice).toEqual({ 'UPG-1': 1, 'UPG-2': 1 });

    const heard = await whilePressed(broker.url, 'UPG-1', () =>
      waitFor(async () => (await devices()).find((row) => row.deviceId === 'UPG-1' && row.supervision === 'online'), { what: 'UPG-1 online', timeoutMs: STEP_MS, intervalMs: 250 }),
    );
    expect(heard.lastHeard).toMatch(/^\d{4}-/);
    expect((JSON.parse(await box.check(['panic-pair', 'status', '--json'])) as { buttons: Record<string, number> }).buttons).toMatchObject({ linked: 2, online: 1, unknown: 1 });

    await box.check(['systemctl', 'stop', UNIT]);
    const upgraded = store();
    expect(upgraded.schemaVersion).toBe(3);
    expect(upgraded.minorVersion).toBe(1);
    expect(upgraded.devices).toEqual(previousStore.devices);
    expect(Object.keys(upgraded.heard?.devices ?? {})).toEqual(['UPG-1']);
    expect(upgraded.heard?.devices['UPG-1']?.lastHeard).toMatch(/^\d{4}-/);
    expect(simulator.stats().postsByDevice).toEqual({ 'UPG-1': 1, 'UPG-2': 1 });
  }, 2 * STEP_MS);

  it('the previous release installed again refuses the newer store, naming it, and leaves its bytes as they are', async () => {
    const bytes = storeText();
    await apt('install', '--allow-downgrades', previousDeb());
    expect(await installed()).toBe(previous.version);
    const refusal = `${STORE} has schemaVersion 3, which this panic-pair does not read (it reads 1)`;
    const journal = await waitFor(
      async () => {
        const text = await box.check(['journalctl', '--no-pager', '-o', 'cat', '-u', UNIT]);
        return text.includes(refusal) ? text : undefined;
      },
      { what: 'the refusal in the journal', timeoutMs: STEP_MS, intervalMs: 250 },
    );
    expect(journal).toContain(refusal);
    expect((await show('ActiveState')).ActiveState).not.toBe('active');
    await box.check(['systemctl', 'stop', UNIT]); // ends its restarts
    expect(storeText()).toBe(bytes);
  }, 2 * STEP_MS);
});
